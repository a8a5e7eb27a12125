/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The debug stub's wire protocol (ghc-debug's, plus rtscope's extensions
 * from 64 up): request commands, response statuses, the reasons of a
 * BAD_COMMAND reply and the framing constants. docs/debug-protocol.md is
 * the specification; this header is the one place its numbers are written,
 * included by the stub (rts/DebugStub*.c) and by debuggers (rtscope's
 * consumer/lib/debug).
 *
 * Plain C: macros and enumerations only, no RTS types, so that a program
 * that is not the RTS can include it on its own.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

/* A request: length (4 bytes, big-endian) of what follows, command (4
 * bytes, big-endian), the command's arguments. A response: one or more
 * frames of length (4 bytes, big-endian) of the payload, status (2 bytes,
 * big-endian), payload; every frame but the last has status
 * DEBUG_STUB_RESP_OKAY_CONTINUES. Pointers travel in host order. */
#define DEBUG_STUB_RESP_HEADER_LEN   6
#define DEBUG_STUB_REQUEST_MAX       (1u << 20)  /* longest request the stub reads */

/* A block group in BLOCKS and BLOCK replies: flags (2 bytes, host order),
 * start (8 bytes, host order), length (4 bytes, big-endian), then the
 * block group's bytes. */
#define DEBUG_STUB_BLOCK_HEADER_LEN  14

/* The VERSION reply: the GHC whose heap this is (4 bytes, as ghc-debug's
 * stub answers: __GLASGOW_HASKELL__, 902 or 906; a client picks its
 * layouts by it), its patch level (4 bytes: 2 or 6), profiled RTS (1
 * byte), tables next to code (1 byte). */

enum DebugStubCommand {
    DEBUG_STUB_CMD_VERSION          = 1,
    DEBUG_STUB_CMD_PAUSE            = 2,
    DEBUG_STUB_CMD_RESUME           = 3,
    DEBUG_STUB_CMD_ROOTS            = 4,
    DEBUG_STUB_CMD_CLOSURES         = 5,
    DEBUG_STUB_CMD_INFO_TABLES      = 6,
    DEBUG_STUB_CMD_STACK_BITMAP     = 7,
    DEBUG_STUB_CMD_POLL             = 8,
    DEBUG_STUB_CMD_SAVED_OBJECTS    = 9,
    DEBUG_STUB_CMD_FIND_PTR         = 10,
    DEBUG_STUB_CMD_CON_DESCR        = 11,
    DEBUG_STUB_CMD_SOURCE_INFO      = 12,
    DEBUG_STUB_CMD_BLOCKS           = 14,
    DEBUG_STUB_CMD_BLOCK            = 15,
    DEBUG_STUB_CMD_FUN_BITMAP       = 16,
    DEBUG_STUB_CMD_SRT              = 17,
    DEBUG_STUB_CMD_CCS              = 18,
    DEBUG_STUB_CMD_CC               = 19,
    DEBUG_STUB_CMD_INDEX_TABLE      = 20,
    DEBUG_STUB_CMD_CCS_MAIN         = 21,
    /* rtscope's extensions */
    DEBUG_STUB_CMD_PAUSE_AFTER_GC     = 64,
    DEBUG_STUB_CMD_STAY_PAUSED        = 65,
    DEBUG_STUB_CMD_PAUSE_AFTER_CENSUS = 66,
    DEBUG_STUB_CMD_READ_CLOSURES      = 67,
    DEBUG_STUB_CMD_DESCRIBE_INFOS     = 68,
    DEBUG_STUB_CMD_BLOCK_LIST         = 69,
};

/* READ_CLOSURES and DESCRIBE_INFOS take a count (4 bytes, big-endian) and
 * that many pointers; they answer for each pointer in turn, and a pointer
 * that cannot be read gets its reason in its own place instead of failing
 * the whole request (docs/debug-protocol.md, "rtscope's extensions").
 * READ_CLOSURES sends, after a closure that needs one (STACK, AP_STACK,
 * PAP, AP), its pointer map: a byte per word of the closure. */
enum DebugStubWord {
    DEBUG_STUB_WORD_DATA  = 0,  /* not a pointer */
    DEBUG_STUB_WORD_PTR   = 1,  /* a pointer to a closure */
    DEBUG_STUB_WORD_FRAME = 2,  /* a stack frame's info pointer */
};

/* The status of a response frame. */
enum DebugStubStatus {
    DEBUG_STUB_RESP_OKAY            = 0,
    DEBUG_STUB_RESP_OKAY_CONTINUES  = 1,
    DEBUG_STUB_RESP_BAD_COMMAND     = 0x100,
    DEBUG_STUB_RESP_ALREADY_PAUSED  = 0x101,
    DEBUG_STUB_RESP_NOT_PAUSED      = 0x102,
    DEBUG_STUB_RESP_NO_RESUME       = 0x103,
    DEBUG_STUB_RESP_BAD_STACK       = 0x104,
};

/* The reason (2 bytes, big-endian) that starts the payload of a
 * DEBUG_STUB_RESP_BAD_COMMAND frame; a message follows it. */
enum DebugStubReason {
    DEBUG_STUB_WHY_UNKNOWN_COMMAND  = 1,
    DEBUG_STUB_WHY_MALFORMED        = 2,
    DEBUG_STUB_WHY_BAD_ADDRESS      = 3,
    DEBUG_STUB_WHY_TOO_LONG         = 4,
    DEBUG_STUB_WHY_UNSUPPORTED      = 5,
    DEBUG_STUB_WHY_TIMEOUT          = 6,
};
