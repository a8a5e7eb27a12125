/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Control messages of eventlog-socket clients; see EventLogSocketControl.h.
 *
 * ---------------------------------------------------------------------------*/

#if defined(COMPILING_RTS)
#include "RtscopeGhc.h"
#include "Rts.h"
#endif

#include "EventLogSocketControl.h"

#include <stdbool.h>
#include <string.h>

static const uint8_t magic[EVENTLOG_SOCKET_MAGIC_LEN] = EVENTLOG_SOCKET_MAGIC;

/* The namespaces the parser knows, indexed by ElcNamespace. */
static const struct { const char *name; uint8_t len; int first, last; } known[] = {
    [ELC_NS_EVENTLOG_SOCKET] = { EVENTLOG_SOCKET_NAMESPACE, EVENTLOG_SOCKET_NAMESPACE_LEN,
                                 EVENTLOG_SOCKET_CMD_FIRST, EVENTLOG_SOCKET_CMD_LAST },
    [ELC_NS_RTSCOPE]         = { RTSCOPE_SOCKET_NAMESPACE, RTSCOPE_SOCKET_NAMESPACE_LEN,
                                 RTSCOPE_SOCKET_CMD_FIRST, RTSCOPE_SOCKET_CMD_LAST },
};
#define N_KNOWN ((int)(sizeof(known) / sizeof(known[0])))

void
elc_init(ElcParser *p)
{
    memset(p, 0, sizeof(*p));
    p->state = ELC_MAGIC;
}

/* Start over at byte b, which did not fit the message being read. */
static void
resync(ElcParser *p, uint8_t b, unsigned long *ignored)
{
    if (!p->in_garbage) {
        (*ignored)++;
        p->in_garbage = 1;
    }
    p->state = ELC_MAGIC;
    p->magic_seen = (b == magic[0]) ? 1 : 0;
}

void
elc_feed(ElcParser *p, const uint8_t *buf, size_t len,
         void (*on_command)(void *ctx, ElcNamespace ns, int cmd), void *ctx,
         unsigned long *ignored)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t b = buf[i];
        switch (p->state) {
        case ELC_MAGIC:
            if (b == magic[p->magic_seen]) {
                if (++p->magic_seen == sizeof(magic)) {
                    p->state = ELC_VERSION;
                    p->magic_seen = 0;
                }
            } else {
                resync(p, b, ignored);
            }
            break;
        case ELC_VERSION:
            if (b == EVENTLOG_SOCKET_PROTOCOL_VERSION) p->state = ELC_NSLEN;
            else resync(p, b, ignored);   /* unknown version: layout unknown */
            break;
        case ELC_NSLEN:
            /* eventlog-socket takes an empty namespace for a protocol error
             * and starts over at this byte, so the next message is read
             * whole; the byte itself (0) cannot begin the magic. */
            if (b == 0) {
                resync(p, b, ignored);
                break;
            }
            p->ns_len = b;
            p->ns_seen = 0;
            p->ns_match = 0;
            for (int k = 0; k < N_KNOWN; k++) {
                if (known[k].len == b) p->ns_match |= (uint8_t)(1u << k);
            }
            p->state = ELC_NS;
            break;
        case ELC_NS:
            for (int k = 0; k < N_KNOWN; k++) {
                if ((p->ns_match & (1u << k)) && (char)b != known[k].name[p->ns_seen]) {
                    p->ns_match &= (uint8_t)~(1u << k);
                }
            }
            if (++p->ns_seen == p->ns_len) p->state = ELC_CMD;
            break;
        case ELC_CMD: {
            p->state = ELC_MAGIC;
            p->magic_seen = 0;
            p->in_garbage = 0;
            bool done = false;
            for (int k = 0; k < N_KNOWN && !done; k++) {
                if ((p->ns_match & (1u << k)) && b >= known[k].first && b <= known[k].last) {
                    on_command(ctx, (ElcNamespace)k, b);
                    done = true;
                }
            }
            if (!done) (*ignored)++;
            break;
        }
        }
    }
}
