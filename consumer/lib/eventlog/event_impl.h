/* Payload checks used by the reader (internal). */
#ifndef RTSCOPE_EVENT_IMPL_H
#define RTSCOPE_EVENT_IMPL_H

#include "rtscope/eventlog.h"

/* 1 if el_event_decode(ev) would succeed, told without decoding it for
 * nearly every type (see Note [Checking a payload without decoding it] in
 * event.c); `ev` is left as it is. */
int event_payload_ok(const el_event *ev);

#endif
