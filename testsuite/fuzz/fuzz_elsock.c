/*
 * libFuzzer target for the eventlog socket's two parsers, which read bytes
 * the RTS does not control: the control-message parser (bytes from any
 * client) and the stream splitter (the eventlog the tee follows).
 *
 * Properties checked, beyond "no crash, no sanitizer report":
 *  - control: splitting the input at arbitrary points yields the same
 *    commands and the same count of ignored messages as one feed;
 *  - stream: the units handed out, followed by the pending bytes, are
 *    exactly the bytes fed (nothing lost, duplicated or reordered), until an
 *    error stops the splitter; and feeding in pieces gives the same units
 *    as feeding at once.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined -Irts/eventlog -Iincludes \
 *   rts/eventlog/EventLogSocketControl.c rts/eventlog/EventLogStream.c \
 *   testsuite/fuzz/fuzz_elsock.c
 */
#include "EventLogSocketControl.h"
#include "EventLogStream.h"

#include <stdlib.h>
#include <string.h>

typedef struct { int cmds[4096]; size_t n; } Cmds;

static void on_cmd(void *ctx, ElcNamespace ns, int cmd)
{
    Cmds *c = ctx;
    if (c->n < 4096) c->cmds[c->n++] = (int)ns * 256 + cmd;
}

static void check_control(const uint8_t *data, size_t size)
{
    static Cmds a, b;
    a.n = b.n = 0;
    unsigned long ia = 0, ib = 0;
    ElcParser p;
    elc_init(&p);
    elc_feed(&p, data, size, on_cmd, &a, &ia);
    elc_init(&p);
    size_t i = 0, step = size ? (data[0] % 7) + 1 : 1;
    while (i < size) {
        size_t n = size - i < step ? size - i : step;
        elc_feed(&p, data + i, n, on_cmd, &b, &ib);
        i += n;
        step = (step * 5 + 3) % 11 + 1;
    }
    if (a.n != b.n || ia != ib || memcmp(a.cmds, b.cmds, a.n * sizeof(int)) != 0) abort();
    for (size_t k = 0; k < a.n; k++) {
        int ns = a.cmds[k] / 256, cmd = a.cmds[k] % 256;
        if (ns == ELC_NS_EVENTLOG_SOCKET &&
            (cmd < EVENTLOG_SOCKET_CMD_FIRST || cmd > EVENTLOG_SOCKET_CMD_LAST)) abort();
        if (ns == ELC_NS_RTSCOPE &&
            (cmd < RTSCOPE_SOCKET_CMD_FIRST || cmd > RTSCOPE_SOCKET_CMD_LAST)) abort();
        if (ns != ELC_NS_EVENTLOG_SOCKET && ns != ELC_NS_RTSCOPE) abort();
    }
}

typedef struct { uint8_t *buf; size_t len, cap; size_t units; } Out;

static void on_unit(void *ctx, const ElsUnit *u)
{
    Out *o = ctx;
    if (o->len + u->len > o->cap) {
        o->cap = (o->len + u->len) * 2;
        o->buf = realloc(o->buf, o->cap);
        if (!o->buf) abort();
    }
    memcpy(o->buf + o->len, u->bytes, u->len);
    o->len += u->len;
    o->units++;
    if (u->kind == ELS_UNIT_BLOCK && u->len < ELS_BLOCK_MARKER_LEN) abort();
}

static void run_stream(const uint8_t *data, size_t size, size_t step, Out *o,
                       ElsStream *s, ElsError *err)
{
    size_t i = 0;
    *err = ELS_OK;
    while (i < size && *err == ELS_OK) {
        size_t n = step == 0 || size - i < step ? size - i : step;
        *err = els_feed(s, data + i, n, on_unit, o);
        i += n;
    }
}

static void check_stream(const uint8_t *data, size_t size)
{
    ElsStream s1, s2;
    if (!els_init(&s1, 1 << 20) || !els_init(&s2, 1 << 20)) abort();
    Out a = {0}, b = {0};
    ElsError e1, e2;
    run_stream(data, size, 0, &a, &s1, &e1);
    run_stream(data, size, size ? (size_t)(data[size - 1] % 13) + 1 : 1, &b, &s2, &e2);
    if (e1 == ELS_OK) {
        /* units + pending == input */
        if (a.len + s1.pending_len != size) abort();
        /* (memcmp of 0 bytes at NULL is undefined: the lengths first) */
        if (a.len && memcmp(a.buf, data, a.len) != 0) abort();
        if (s1.pending_len
            && memcmp(s1.pending, data + a.len, s1.pending_len) != 0) abort();
    }
    if ((e1 == ELS_OK) != (e2 == ELS_OK)) abort();
    if (e1 == ELS_OK && (a.len != b.len || a.units != b.units
                         || (a.len && memcmp(a.buf, b.buf, a.len) != 0))) abort();
    free(a.buf); free(b.buf);
    els_free(&s1); els_free(&s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    if (data[0] & 1) check_control(data + 1, size - 1);
    else check_stream(data + 1, size - 1);
    return 0;
}
