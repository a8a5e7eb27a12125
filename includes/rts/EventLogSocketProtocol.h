/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * The control messages that clients of the eventlog socket send to the
 * program, in eventlog-socket's format (protocol version 0):
 *
 *   magic F0 9E 97 8C | version (1 byte) | namespace length N (1 byte) |
 *   namespace (N bytes, UTF-8) | command (1 byte)
 *
 * docs/eventlog-socket.md is the specification; this header is the one
 * place its facts are written, included by the RTS (rts/eventlog/
 * EventLogSocketControl.c parses the messages) and by clients (rtscope's
 * consumer sends them).
 *
 * Plain C: macros and enumerations only, no RTS types.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

#define EVENTLOG_SOCKET_MAGIC             "\xF0\x9E\x97\x8C"
#define EVENTLOG_SOCKET_MAGIC_LEN         4
#define EVENTLOG_SOCKET_PROTOCOL_VERSION  0
#define EVENTLOG_SOCKET_NAMESPACE         "eventlog-socket"
#define EVENTLOG_SOCKET_NAMESPACE_LEN     15

/* The length of a message of the namespace EVENTLOG_SOCKET_NAMESPACE. */
#define EVENTLOG_SOCKET_CONTROL_LEN \
    (EVENTLOG_SOCKET_MAGIC_LEN + 2 + EVENTLOG_SOCKET_NAMESPACE_LEN + 1)

/* The commands of the namespace EVENTLOG_SOCKET_NAMESPACE, with
 * eventlog-socket's numbers (0.1.3). Its commands 6-19 switch trace classes
 * with GHC 10's setTraceFlag, which 9.0.2 does not have: they are counted
 * as ignored, as unknown commands are. */
enum EventLogSocketCommand {
    EVENTLOG_SOCKET_CMD_START_PROFILING  = 1,   /* startProfTimer */
    EVENTLOG_SOCKET_CMD_STOP_PROFILING   = 2,   /* stopProfTimer */
    EVENTLOG_SOCKET_CMD_START_HEAP_PROF  = 3,   /* startHeapProfTimer */
    EVENTLOG_SOCKET_CMD_STOP_HEAP_PROF   = 4,   /* stopHeapProfTimer */
    EVENTLOG_SOCKET_CMD_REQUEST_CENSUS   = 5,   /* requestHeapCensus */
};
#define EVENTLOG_SOCKET_CMD_FIRST  EVENTLOG_SOCKET_CMD_START_PROFILING
#define EVENTLOG_SOCKET_CMD_LAST   EVENTLOG_SOCKET_CMD_REQUEST_CENSUS

/* rtscope's own namespace: commands that act on the sending client's
 * stream, and a heap snapshot (+RTS --heap-snapshot-*: written to the
 * program's snapshot directory, reported on its stderr and eventlog). */
#define RTSCOPE_SOCKET_NAMESPACE          "rtscope"
#define RTSCOPE_SOCKET_NAMESPACE_LEN      7

enum RtscopeSocketCommand {
    RTSCOPE_SOCKET_CMD_RESUME_STREAM     = 1,   /* send this client events again */
    RTSCOPE_SOCKET_CMD_PAUSE_STREAM      = 2,   /* stop sending this client events */
    RTSCOPE_SOCKET_CMD_HEAP_SNAPSHOT     = 3,   /* rts_requestHeapSnapshot */
};
#define RTSCOPE_SOCKET_CMD_FIRST   RTSCOPE_SOCKET_CMD_RESUME_STREAM
#define RTSCOPE_SOCKET_CMD_LAST    RTSCOPE_SOCKET_CMD_HEAP_SNAPSHOT
