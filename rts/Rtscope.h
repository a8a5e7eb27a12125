/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * What every rtscope addition to the RTS shares: the version reported by
 * +RTS --info, and the prefix of rtscope's own eventlog user messages.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

/* The one place rtscope's version is written: consumer/Makefile and
 * scripts/lib.sh read it from this line. */
#define RTSCOPE_VERSION "0.1.0"

/* See Note [rtscope user messages] */
#define RTSCOPE_MSG_PREFIX "rtscope: "

/* Note [rtscope user messages]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Anything rtscope-specific that must travel in the eventlog (losses on the
 * eventlog socket, for example) is written as an ordinary user message
 * (EVENT_USER_MSG) whose text starts with "rtscope: ". Upstream GHC owns the
 * event-type numbers; a number we invented could later be taken by upstream
 * for something else, whereas a user message parses in every tool today.
 */
