/* Check unit tests for rtscope's samples (Note [rtscope's samples] in
 * event.c): user binary messages (181) whose payload is ASCII text that
 * starts "rtscope:st " or "rtscope:sa " decode as time or allocation
 * samples, every token checked and never a read past the payload; every
 * other binary message decodes as before. Read through the reader (a file)
 * and a stream (a pipe), as a sink gets them, and one event alone in an
 * exact allocation (for ASan). */
#define _POSIX_C_SOURCE 200809L
#include "elbuild.h"
#include "event_impl.h"
#include "rtscope/eventlog.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Suite *samples_suite(void);

/* What a sink saw of the binary messages of a log. */
typedef struct seen {
    unsigned n, other;
    el_sample_kind kind[16];
    uint64_t weight[16];
    uint32_t thread[16], size[16];
    uint16_t flags[16], depth[16];
    uint64_t frames[16][8]; /* the first 8 */
    size_t other_len[16];   /* the ordinary messages' lengths */
    uint8_t other_first[16];
} seen;

static int see(void *ctx, const el_event *ev, const el_typetab *types)
{
    seen *s = ctx;
    (void)types;
    if (ev->type != EL_USER_BINARY_MSG)
        return 0;
    ck_assert_int_eq(ev->known, 1);
    el_sample_kind k = el_sample_kind_of(ev);
    uint64_t out[9];
    if (k == EL_SAMPLE_NONE) {
        ck_assert_uint_lt(s->other, 16);
        /* as before: the whole payload, all of it understood */
        ck_assert_ptr_eq(ev->u.binary.data.ptr, (const char *)ev->payload);
        ck_assert_uint_eq(ev->u.binary.data.len, ev->payload_len);
        ck_assert_uint_eq(ev->decoded_len, ev->payload_len);
        ck_assert_uint_eq(el_sample_frames(ev, out, 9), 0);
        s->other_len[s->other] = ev->u.binary.data.len;
        s->other_first[s->other] =
            ev->payload_len ? (uint8_t)ev->u.binary.data.ptr[0] : 0;
        s->other++;
        return 0;
    }
    ck_assert_uint_lt(s->n, 16);
    unsigned i = s->n++;
    s->kind[i] = k;
    s->weight[i] = ev->u.binary.stack.weight;
    s->thread[i] = ev->u.binary.stack.thread;
    s->size[i] = ev->u.binary.stack.size;
    s->flags[i] = ev->u.binary.stack.flags;
    s->depth[i] = ev->u.binary.stack.depth;
    /* the whole payload understood */
    ck_assert_uint_eq(ev->decoded_len, ev->payload_len);
    /* min(depth, max) frames, none past max */
    out[8] = 0xdead;
    size_t n = el_sample_frames(ev, out, 8);
    ck_assert_uint_eq(n, s->depth[i] < 8 ? s->depth[i] : 8);
    ck_assert_uint_eq(out[8], 0xdead);
    memcpy(s->frames[i], out, n * 8);
    ck_assert_uint_eq(el_sample_frames(ev, out, 0), 0);
    return 0;
}

/* Read a log through a file, as every command does. */
static el_status read_log(const elbuild *b, seen *s, el_error *err)
{
    char path[] = "/tmp/rtscope-samples-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b->buf, b->len), (ssize_t)b->len);
    close(fd);
    memset(s, 0, sizeof(*s));
    el_reader_result res;
    el_status st = el_reader_run(path, NULL, see, s, &res, err);
    unlink(path);
    return st;
}

/* Read it as a pipe is read: pushed in small pieces through a stream. */
static el_status stream_log(const elbuild *b, seen *s, el_error *err)
{
    memset(s, 0, sizeof(*s));
    el_stream *st = el_stream_new(NULL, see, s);
    ck_assert_ptr_nonnull(st);
    el_status rc = EL_OK;
    for (size_t at = 0; at < b->len && rc == EL_OK; at += 7) {
        size_t n = b->len - at < 7 ? b->len - at : 7;
        rc = el_stream_feed(st, b->buf + at, n);
    }
    if (rc == EL_OK)
        rc = el_stream_finish(st);
    if (rc != EL_OK)
        *err = *el_stream_error(st);
    el_stream_free(st);
    return rc;
}

static const uint64_t frames[] = {0x401000, 0x402000, 0x403000,
                                  0xffffffff80001234ull, 0x1, 0x0,
                                  0xabcdef0123456789ull, 0x40d5b8, 0x43ecb0};
#define NFRAMES (sizeof(frames) / sizeof(frames[0]))

/* Binary messages that are not samples: another tool's (ghc-stack-profiler
 * tags its own 0xFFCA), a later format's prefix, the prefix cut short or
 * without its space, another case, bytes that are not UTF-8, nothing. */
static const struct {
    const char *bytes;
    size_t len;
} not_samples[] = {
    {"\xff\xca\0\0\0\1\0\0\0\0\0\0", 12},
    {"rtscope:st2 1 2 3", 17},
    {"rtscope:sa2 1 2 3 4", 19},
    {"rtscope:s", 9},
    {"rtscope:st", 10},
    {"rtscope:sa", 10},
    {"rtscope:sx 1 2 3", 16},
    {"rtscope:st\t1 2 3", 16},
    {"rtscope:", 8},
    {"RTSCOPE:st 1 2 0", 16},
    {"rtscope;sa 1 2 3 0", 18},
    {"rtscope:\1\0\0\0\0\0\0\0\5\0\0\0\1\0\0\0\0", 25},
    {"\xec\x9c\xff rtscope:st 1 2 0", 19},
    {"", 0},
};
#define NNOT (sizeof(not_samples) / sizeof(not_samples[0]))

/* Decode one binary message alone, in an exact allocation (ASan sees any
 * read past it); the payload check must agree. */
static el_status decode_alone(const char *bytes, size_t len, el_event *ev,
                              uint8_t **keep, el_error *err)
{
    uint8_t *pl = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(pl);
    memcpy(pl, bytes, len);
    memset(ev, 0, sizeof(*ev));
    ev->type = EL_USER_BINARY_MSG;
    ev->offset = 1234;
    ev->payload = pl;
    ev->payload_len = (uint32_t)len;
    int ok = event_payload_ok(ev);
    el_status st = el_event_decode(ev, err);
    ck_assert_msg(ok == (st == EL_OK), "check %d, decode %d: %.*s", ok, st,
                  (int)len, bytes);
    *keep = pl;
    return st;
}

START_TEST(samples_decoded)
{
    elbuild b, p;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 0, 1);
    eb_time_sample(&b, 2, 10000000, 7, 0, 4, frames);
    eb_alloc_sample(&b, 3, 524288, 8, 48, EL_SAMPLE_LATE, 2, frames);
    eb_var_event(&b, EL_USER_BINARY_MSG, 3, not_samples[0].bytes,
                 not_samples[0].len);
    eb_alloc_sample(&b, 4, 524288, 9, 0, EL_SAMPLE_LATE | EL_SAMPLE_TRUNCATED,
                    0, NULL);
    eb_time_sample(&b, 4, 20000000, 10, 0, 1, frames + 1);
    eb_time_sample(&b, 4, 1000000, 4294967295u, 0, NFRAMES, frames);
    eb_alloc_sample(&b, 5, 18446744073709551615ull, 0, 4294967295u, 65535,
                    NFRAMES, frames);
    /* uppercase hexadecimal, leading zeros */
    eb_init(&p);
    eb_bytes(&p, "rtscope:sa 007 03 40 0 43ECB0 00000000000000Ff 0", 48);
    eb_var_event(&b, EL_USER_BINARY_MSG, 5, p.buf, p.len);
    eb_free(&p);
    /* what the RTS wrote, as it wrote it */
    static const char real[] =
        "rtscope:sa 131072 4 40 0 43ecb0 40d5b8 40d6c8 40df70 439228 4b44f8";
    eb_var_event(&b, EL_USER_BINARY_MSG, 6, real, sizeof(real) - 1);
    eb_block_end(&b, 7);
    eb_data_end(&b);
    for (int how = 0; how < 2; how++) {
        seen s;
        el_error err;
        ck_assert_int_eq(
            how ? stream_log(&b, &s, &err) : read_log(&b, &s, &err), EL_OK);
        ck_assert_uint_eq(s.n, 8);
        ck_assert_uint_eq(s.other, 1);
        ck_assert_uint_eq(s.other_len[0], not_samples[0].len);
        ck_assert_uint_eq(s.other_first[0], 0xff);
        /* many frames */
        ck_assert_int_eq(s.kind[0], EL_TIME_SAMPLE);
        ck_assert_uint_eq(s.weight[0], 10000000);
        ck_assert_uint_eq(s.thread[0], 7);
        ck_assert_uint_eq(s.size[0], 0);
        ck_assert_uint_eq(s.flags[0], 0);
        ck_assert_uint_eq(s.depth[0], 4);
        ck_assert_mem_eq(s.frames[0], frames, 4 * 8);
        ck_assert_int_eq(s.kind[1], EL_ALLOC_SAMPLE);
        ck_assert_uint_eq(s.weight[1], 524288);
        ck_assert_uint_eq(s.thread[1], 8);
        ck_assert_uint_eq(s.size[1], 48);
        ck_assert_uint_eq(s.flags[1], EL_SAMPLE_LATE);
        ck_assert_uint_eq(s.depth[1], 2);
        ck_assert_mem_eq(s.frames[1], frames, 2 * 8);
        /* no frames */
        ck_assert_int_eq(s.kind[2], EL_ALLOC_SAMPLE);
        ck_assert_uint_eq(s.size[2], 0);
        ck_assert_uint_eq(s.flags[2], EL_SAMPLE_LATE | EL_SAMPLE_TRUNCATED);
        ck_assert_uint_eq(s.depth[2], 0);
        /* one frame */
        ck_assert_int_eq(s.kind[3], EL_TIME_SAMPLE);
        ck_assert_uint_eq(s.weight[3], 20000000);
        ck_assert_uint_eq(s.depth[3], 1);
        ck_assert_uint_eq(s.frames[3][0], 0x402000);
        /* each field at its widest; more frames than the sink asked for */
        ck_assert_uint_eq(s.thread[4], 4294967295u);
        ck_assert_uint_eq(s.depth[4], NFRAMES);
        ck_assert_mem_eq(s.frames[4], frames, 8 * 8);
        ck_assert_int_eq(s.kind[5], EL_ALLOC_SAMPLE);
        ck_assert_uint_eq(s.weight[5], 18446744073709551615ull);
        ck_assert_uint_eq(s.thread[5], 0);
        ck_assert_uint_eq(s.size[5], 4294967295u);
        ck_assert_uint_eq(s.flags[5], 65535); /* reserved bits kept */
        ck_assert_uint_eq(s.depth[5], NFRAMES);
        /* uppercase */
        ck_assert_uint_eq(s.weight[6], 7);
        ck_assert_uint_eq(s.thread[6], 3);
        ck_assert_uint_eq(s.size[6], 40);
        ck_assert_uint_eq(s.depth[6], 3);
        ck_assert_uint_eq(s.frames[6][0], 0x43ecb0);
        ck_assert_uint_eq(s.frames[6][1], 0xff);
        ck_assert_uint_eq(s.frames[6][2], 0);
        /* the RTS's */
        static const uint64_t real_frames[] = {0x43ecb0, 0x40d5b8, 0x40d6c8,
                                               0x40df70, 0x439228, 0x4b44f8};
        ck_assert_int_eq(s.kind[7], EL_ALLOC_SAMPLE);
        ck_assert_uint_eq(s.weight[7], 131072);
        ck_assert_uint_eq(s.thread[7], 4);
        ck_assert_uint_eq(s.size[7], 40);
        ck_assert_uint_eq(s.flags[7], 0);
        ck_assert_uint_eq(s.depth[7], 6);
        ck_assert_mem_eq(s.frames[7], real_frames, sizeof(real_frames));
    }
    eb_free(&b);
}
END_TEST

/* A time sample alone: its fields, every frame. */
START_TEST(samples_time_alone)
{
    static const char text[] = "rtscope:st 1000000 4 0 43ecb0 40d5b8 40d6c8 "
                               "40df70";
    el_event ev;
    uint8_t *pl;
    el_error err;
    ck_assert_int_eq(decode_alone(text, sizeof(text) - 1, &ev, &pl, &err),
                     EL_OK);
    ck_assert_int_eq(el_sample_kind_of(&ev), EL_TIME_SAMPLE);
    ck_assert_uint_eq(ev.u.binary.stack.weight, 1000000);
    ck_assert_uint_eq(ev.u.binary.stack.thread, 4);
    ck_assert_uint_eq(ev.u.binary.stack.size, 0);
    ck_assert_uint_eq(ev.u.binary.stack.flags, 0);
    ck_assert_uint_eq(ev.u.binary.stack.depth, 4);
    ck_assert_uint_eq(ev.decoded_len, sizeof(text) - 1);
    uint64_t out[4];
    ck_assert_uint_eq(el_sample_frames(&ev, out, 4), 4);
    ck_assert_uint_eq(out[0], 0x43ecb0);
    ck_assert_uint_eq(out[3], 0x40df70);
    ck_assert_uint_eq(el_sample_frames(&ev, out, 2), 2);
    ck_assert_uint_eq(out[1], 0x40d5b8);
    free(pl);
}
END_TEST

/* Without "rtscope:st " or "rtscope:sa ", a binary message is an ordinary
 * one, as it always was, however it goes on. */
START_TEST(samples_other_messages_unchanged)
{
    elbuild b;
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 0, 1);
    for (size_t i = 0; i < NNOT; i++)
        eb_var_event(&b, EL_USER_BINARY_MSG, 2 + i, not_samples[i].bytes,
                     not_samples[i].len);
    eb_block_end(&b, 20);
    eb_data_end(&b);
    seen s;
    el_error err;
    ck_assert_int_eq(read_log(&b, &s, &err), EL_OK);
    ck_assert_uint_eq(s.n, 0);
    ck_assert_uint_eq(s.other, NNOT);
    eb_free(&b);
    for (size_t i = 0; i < NNOT; i++) {
        size_t len = not_samples[i].len;
        el_event ev;
        uint8_t *pl;
        ck_assert_int_eq(decode_alone(not_samples[i].bytes, len, &ev, &pl, &err),
                         EL_OK);
        ck_assert_int_eq(el_sample_kind_of(&ev), EL_SAMPLE_NONE);
        ck_assert_uint_eq(ev.u.binary.data.len, len);
        ck_assert_uint_eq(ev.decoded_len, len);
        free(pl);
    }
}
END_TEST

/* Samples that are not right, and what the error names. */
static const struct {
    const char *text;
    size_t len;       /* 0: strlen(text) */
    const char *says; /* in the error message */
} corrupt[] = {
    {"rtscope:st x 4 0 43ecb0", 0, "malformed weight field at payload byte 11"},
    {"rtscope:st 1x 4 0", 0, "malformed weight field"},
    {"rtscope:st +1 4 0", 0, "malformed weight field"},
    {"rtscope:st -1 4 0", 0, "malformed weight field"},
    {"rtscope:sa 18446744073709551616 4 40 0 43ecb0", 0,
     "malformed weight field"},
    {"rtscope:sa 99999999999999999999 4 40 0", 0, "malformed weight field"},
    {"rtscope:st 1000 4294967296 0 43ecb0", 0, "malformed thread field"},
    {"rtscope:sa 1000 4 4294967296 0 43ecb0", 0, "malformed size field"},
    {"rtscope:st 1000 4 65536 43ecb0", 0, "malformed flags field"},
    {"rtscope:st 1000  4 0 43ecb0", 0, "malformed thread field"},
    {"rtscope:st  1000 4 0", 0, "malformed weight field at payload byte 11"},
    {"rtscope:st 1000 4 0 43ecb0  40d5b8", 0, "malformed frame at payload byte 27"},
    {"rtscope:st 1000 4 0 43ecb0 ", 0, "malformed frame at payload byte 27"},
    {"rtscope:st 1000 4 0 ", 0, "malformed frame at payload byte 20"},
    {"rtscope:sa 1000 4 0 0 ", 0, "malformed frame"},
    {"rtscope:st 1000 4 0 43ecb0 12345678901234567", 0, "malformed frame"},
    {"rtscope:st 1000 4 0 43ecb0 0x43ecb0", 0, "malformed frame at payload byte 27"},
    {"rtscope:st 1000 4 0 43ecbg", 0, "malformed frame at payload byte 20"},
    {"rtscope:st 1000 4 0 43ecb0\n", 0, "malformed frame"},
    {"rtscope:st 1000 4 0 43ecb0\0", 27, "malformed frame at payload byte 20"},
    {"rtscope:st 1000 4 0\t43ecb0", 0, "malformed flags field"},
    {"rtscope:sa 1000 4 40 0 43ecb0 -1", 0, "malformed frame"},
    {"rtscope:st ", 0, "lacks its weight field"},
    {"rtscope:sa ", 0, "lacks its weight field"},
    {"rtscope:st 1000", 0, "lacks its thread field"},
    {"rtscope:st 1000 ", 0, "lacks its thread field"},
    {"rtscope:st 1000 4", 0, "lacks its flags field"},
    {"rtscope:sa 1000 4 40", 0, "lacks its flags field"},
    {"rtscope:sa 1000 4", 0, "lacks its size field"},
};
#define NCORRUPT (sizeof(corrupt) / sizeof(corrupt[0]))

static size_t corrupt_len(size_t i)
{
    return corrupt[i].len ? corrupt[i].len : strlen(corrupt[i].text);
}

/* A corrupt sample stops the read there with a data error at its offset
 * that names the sample and the field, after every event before it, and
 * is never read past its end. */
START_TEST(samples_malformed_rejected)
{
    for (size_t i = 0; i < NCORRUPT; i++) {
        const char *text = corrupt[i].text;
        size_t len = corrupt_len(i);
        int alloc = strncmp(text, "rtscope:sa", 10) == 0;
        elbuild b;
        eb_init(&b);
        eb_header_std(&b, 0, NULL);
        eb_block_begin(&b, 0, 1);
        eb_time_sample(&b, 2, 5, 1, 0, 1, frames); /* a good one first */
        size_t bad_at = b.len;
        eb_var_event(&b, EL_USER_BINARY_MSG, 3, text, len);
        eb_time_sample(&b, 4, 5, 1, 0, 1, frames); /* never reached */
        eb_block_end(&b, 5);
        eb_data_end(&b);
        for (int how = 0; how < 3; how++) {
            seen s;
            el_error err;
            el_status st;
            if (how < 2) {
                st = how ? stream_log(&b, &s, &err) : read_log(&b, &s, &err);
                ck_assert_uint_eq(s.n, 1);
                ck_assert_uint_eq(err.offset, bad_at);
            } else {
                el_event ev;
                uint8_t *pl;
                st = decode_alone(text, len, &ev, &pl, &err);
                free(pl);
            }
            ck_assert_int_eq(st, EL_ERR_FORMAT);
            ck_assert_msg(strstr(err.msg, "corrupt data: rtscope "), "%s",
                          err.msg);
            ck_assert_msg(strstr(err.msg, alloc ? "allocation sample"
                                                : "time sample"),
                          "%s", err.msg);
            ck_assert_msg(strstr(err.msg, "(user-binary-msg event, type 181"),
                          "%s", err.msg);
            ck_assert_msg(strstr(err.msg, corrupt[i].says), "%s: %s", text,
                          err.msg);
        }
        eb_free(&b);
    }
}
END_TEST

/* The most frames a sample may have (a payload longer than an eventlog's
 * u16 payload size allows: only a hand-made event has one). */
START_TEST(samples_depth_limit)
{
    for (unsigned extra = 0; extra < 2; extra++) {
        size_t n = EL_SAMPLE_MAX_DEPTH + extra;
        size_t len = 17 + 2 * n;
        char *text = malloc(len);
        memcpy(text, "rtscope:st 1 2 0", 16);
        for (size_t i = 0; i < n; i++) {
            text[16 + 2 * i] = ' ';
            text[17 + 2 * i] = "0123456789abcdef"[i % 16];
        }
        el_event ev;
        uint8_t *pl;
        el_error err;
        el_status st = decode_alone(text, len - 1, &ev, &pl, &err);
        if (extra == 0) {
            ck_assert_int_eq(st, EL_OK);
            ck_assert_uint_eq(ev.u.binary.stack.depth, EL_SAMPLE_MAX_DEPTH);
            uint64_t *out = malloc(n * 8);
            ck_assert_uint_eq(el_sample_frames(&ev, out, n), n);
            ck_assert_uint_eq(out[n - 1], (n - 1) % 16);
            free(out);
        } else {
            ck_assert_int_eq(st, EL_ERR_FORMAT);
            ck_assert_msg(strstr(err.msg, "more than 65535 frames"), "%s",
                          err.msg);
        }
        free(pl);
        free(text);
    }
}
END_TEST

/* The payload check the reader runs in stream order agrees with the
 * decoder on binary messages: every prefix of good, corrupt and other
 * payloads, and each with any one byte changed to a space, a digit, a
 * letter, a NUL, a newline; neither reads past the payload (exact
 * allocations, for ASan). */
START_TEST(samples_check_matches_decode)
{
    static const char *const good[] = {
        "rtscope:st 1000000 4 0 43ecb0 40d5b8 40d6c8 40df70",
        "rtscope:sa 131072 4 40 3 43ecb0 40d5b8 FFFFFFFFFFFFFFFF",
        "rtscope:sa 18446744073709551615 4294967295 4294967295 65535",
    };
    static const char change[] = {' ', '0', '9', 'f', 'G', '\0', '\n'};
    char buf[128];
    for (size_t t = 0; t < 3 + NCORRUPT + NNOT; t++) {
        const char *text;
        size_t full;
        if (t < 3) {
            text = good[t];
            full = strlen(text);
        } else if (t < 3 + NCORRUPT) {
            text = corrupt[t - 3].text;
            full = corrupt_len(t - 3);
        } else {
            text = not_samples[t - 3 - NCORRUPT].bytes;
            full = not_samples[t - 3 - NCORRUPT].len;
        }
        ck_assert_uint_lt(full, sizeof(buf));
        el_event ev;
        uint8_t *pl;
        el_error err;
        uint64_t out[16];
        /* every prefix */
        for (size_t len = 0; len <= full; len++) {
            if (decode_alone(text, len, &ev, &pl, &err) == EL_OK &&
                el_sample_kind_of(&ev)) {
                ck_assert_uint_eq(ev.decoded_len, len);
                ck_assert_uint_eq(el_sample_frames(&ev, out, 16),
                                  ev.u.binary.stack.depth < 16
                                      ? ev.u.binary.stack.depth
                                      : 16);
            }
            free(pl);
        }
        /* one byte changed */
        for (size_t at = 0; at < full; at++) {
            for (size_t c = 0; c < sizeof(change); c++) {
                memcpy(buf, text, full);
                buf[at] = change[c];
                if (decode_alone(buf, full, &ev, &pl, &err) == EL_OK &&
                    el_sample_kind_of(&ev))
                    ck_assert_uint_eq(ev.decoded_len, full);
                free(pl);
            }
        }
        /* the good decode, the corrupt do not, the others are no sample */
        el_status st = decode_alone(text, full, &ev, &pl, &err);
        ck_assert_int_eq(st, t < 3 || t >= 3 + NCORRUPT ? EL_OK
                                                        : EL_ERR_FORMAT);
        if (st == EL_OK)
            ck_assert_int_eq(el_sample_kind_of(&ev) != EL_SAMPLE_NONE, t < 3);
        free(pl);
    }
}
END_TEST

Suite *samples_suite(void)
{
    Suite *s = suite_create("samples");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, samples_decoded);
    tcase_add_test(tc, samples_time_alone);
    tcase_add_test(tc, samples_other_messages_unchanged);
    tcase_add_test(tc, samples_malformed_rejected);
    tcase_add_test(tc, samples_depth_limit);
    tcase_add_test(tc, samples_check_matches_decode);
    suite_add_tcase(s, tc);
    return s;
}
