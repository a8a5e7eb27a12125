/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Control messages of eventlog-socket clients; see EventLogSocketControl.h.
 *
 * ---------------------------------------------------------------------------*/

#if defined(COMPILING_RTS)
#include "PosixSource.h"
#include "Rts.h"
#endif

#include "EventLogSocketControl.h"

#include <string.h>

static const uint8_t magic[EVENTLOG_SOCKET_MAGIC_LEN] = EVENTLOG_SOCKET_MAGIC;
static const char ns_name[] = EVENTLOG_SOCKET_NAMESPACE;
#define NS_NAME_LEN EVENTLOG_SOCKET_NAMESPACE_LEN

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
         void (*on_command)(void *ctx, int cmd), void *ctx,
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
            p->ns_len = b;
            p->ns_seen = 0;
            p->ns_ok = (b == NS_NAME_LEN);
            p->state = (b == 0) ? ELC_CMD : ELC_NS;
            break;
        case ELC_NS:
            if (p->ns_ok && (char)b != ns_name[p->ns_seen]) p->ns_ok = 0;
            if (++p->ns_seen == p->ns_len) p->state = ELC_CMD;
            break;
        case ELC_CMD:
            p->state = ELC_MAGIC;
            p->magic_seen = 0;
            p->in_garbage = 0;
            if (p->ns_ok && b >= EVENTLOG_SOCKET_CMD_FIRST && b <= EVENTLOG_SOCKET_CMD_LAST) {
                on_command(ctx, b);
            } else {
                (*ignored)++;
            }
            break;
        }
    }
}
