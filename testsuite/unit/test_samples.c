/* Check unit tests for rtscope's samples (Note [rtscope's samples] in
 * event.c): user binary messages (181) whose payload starts "rtscope:" and
 * a kind byte decode as time or allocation samples, with their frames
 * bounded by the payload; every other binary message decodes as before.
 * Read through the reader (a file) and a stream (a pipe), as a sink gets
 * them. */
#define _POSIX_C_SOURCE 200809L
#include "elbuild.h"
#include "event_impl.h"
#include "rtscope/eventlog.h"

#include <check.h>
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
    uint64_t frame0[16], last_frame[16];
    size_t other_len[16]; /* the ordinary messages' lengths */
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
    if (k == EL_SAMPLE_NONE) {
        ck_assert_uint_lt(s->other, 16);
        /* as before: the whole payload, all of it understood */
        ck_assert_ptr_eq(ev->u.binary.data.ptr, (const char *)ev->payload);
        ck_assert_uint_eq(ev->u.binary.data.len, ev->payload_len);
        ck_assert_uint_eq(ev->decoded_len, ev->payload_len);
        ck_assert_uint_eq(el_sample_frame(ev, 0), 0);
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
    s->frame0[i] = el_sample_frame(ev, 0);
    s->last_frame[i] = ev->u.binary.stack.depth
                           ? el_sample_frame(ev, ev->u.binary.stack.depth - 1u)
                           : 0;
    /* past the depth: 0, never a read */
    ck_assert_uint_eq(el_sample_frame(ev, ev->u.binary.stack.depth), 0);
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
                                  0xffffffff80001234ull};

/* Binary messages that are not samples: another tool's (ghc-stack-profiler
 * tags its own 0xFFCA), the prefix with a kind rtscope does not know, the
 * prefix alone or nearly, nothing at all. */
static const struct {
    const char *bytes;
    size_t len;
} not_samples[] = {
    {"\xff\xca\0\0\0\1\0\0\0\0\0\0", 12},
    {"rtscope:\0abcdefghijklmnopqrstuvwxyz", 35},
    {"rtscope:\3abcdefghijklmnopqrstuvwxyz", 35},
    {"rtscope:\377", 9},
    {"rtscope:", 8},
    {"rtscope", 7},
    {"RTSCOPE:\1abcdefghijklmnopqrstuvwxyz", 35},
    {"rtscope;\2abcdefghijklmnopqrstuvwxyz", 35},
    {"", 0},
};
#define NNOT (sizeof(not_samples) / sizeof(not_samples[0]))

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
    /* a newer writer's fields after the frames: skipped */
    eb_init(&p);
    eb_sample_payload(&p, EL_TIME_SAMPLE, 20000000, 10, 0, 0, 1, frames);
    eb_bytes(&p, "more", 4);
    eb_var_event(&b, EL_USER_BINARY_MSG, 4, p.buf, p.len);
    eb_free(&p);
    eb_block_end(&b, 5);
    eb_data_end(&b);
    for (int how = 0; how < 2; how++) {
        seen s;
        el_error err;
        ck_assert_int_eq(
            how ? stream_log(&b, &s, &err) : read_log(&b, &s, &err), EL_OK);
        ck_assert_uint_eq(s.n, 4);
        ck_assert_uint_eq(s.other, 1);
        ck_assert_uint_eq(s.other_len[0], not_samples[0].len);
        ck_assert_uint_eq(s.other_first[0], 0xff);
        ck_assert_int_eq(s.kind[0], EL_TIME_SAMPLE);
        ck_assert_uint_eq(s.weight[0], 10000000);
        ck_assert_uint_eq(s.thread[0], 7);
        ck_assert_uint_eq(s.size[0], 0);
        ck_assert_uint_eq(s.flags[0], 0);
        ck_assert_uint_eq(s.depth[0], 4);
        ck_assert_uint_eq(s.frame0[0], 0x401000);
        ck_assert_uint_eq(s.last_frame[0], 0xffffffff80001234ull);
        ck_assert_int_eq(s.kind[1], EL_ALLOC_SAMPLE);
        ck_assert_uint_eq(s.weight[1], 524288);
        ck_assert_uint_eq(s.thread[1], 8);
        ck_assert_uint_eq(s.size[1], 48);
        ck_assert_uint_eq(s.flags[1], EL_SAMPLE_LATE);
        ck_assert_uint_eq(s.depth[1], 2);
        ck_assert_uint_eq(s.last_frame[1], 0x402000);
        ck_assert_int_eq(s.kind[2], EL_ALLOC_SAMPLE);
        ck_assert_uint_eq(s.flags[2], EL_SAMPLE_LATE | EL_SAMPLE_TRUNCATED);
        ck_assert_uint_eq(s.depth[2], 0);
        ck_assert_int_eq(s.kind[3], EL_TIME_SAMPLE);
        ck_assert_uint_eq(s.weight[3], 20000000);
        ck_assert_uint_eq(s.depth[3], 1);
        ck_assert_uint_eq(s.frame0[3], 0x401000);
    }
    eb_free(&b);
}
END_TEST

/* Without the prefix and a kind rtscope knows, a binary message is an
 * ordinary one, as it always was, however it goes on. */
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
    /* each alone, decoded in an exact allocation (ASan sees any read past
     * it) */
    for (size_t i = 0; i < NNOT; i++) {
        size_t len = not_samples[i].len;
        uint8_t *pl = malloc(len ? len : 1);
        memcpy(pl, not_samples[i].bytes, len);
        el_event ev;
        memset(&ev, 0, sizeof(ev));
        ev.type = EL_USER_BINARY_MSG;
        ev.payload = pl;
        ev.payload_len = (uint32_t)len;
        ck_assert_int_eq(event_payload_ok(&ev), 1);
        ck_assert_int_eq(el_event_decode(&ev, NULL), EL_OK);
        ck_assert_int_eq(el_sample_kind_of(&ev), EL_SAMPLE_NONE);
        ck_assert_uint_eq(ev.u.binary.data.len, len);
        ck_assert_uint_eq(ev.decoded_len, len);
        free(pl);
    }
}
END_TEST

/* A sample (prefix and kind) whose payload ends inside its fields, or
 * whose depth promises more frames than it holds, stops the read there
 * with a data error at its offset that names the sample, after every event
 * before it, and is never read past its end. */
START_TEST(samples_malformed_rejected)
{
    for (uint8_t kind = EL_TIME_SAMPLE; kind <= EL_ALLOC_SAMPLE; kind++) {
        for (int cut = 0; cut < 4; cut++) {
            elbuild b, p;
            eb_init(&b);
            eb_header_std(&b, 0, NULL);
            eb_block_begin(&b, 0, 1);
            eb_time_sample(&b, 2, 5, 1, 0, 1, frames); /* a good one first */
            size_t bad_at = b.len;
            eb_init(&p);
            /* depth 3 written with 3 frames, cut below */
            eb_sample_payload(&p, kind, 524288, 1, 32, 0, 3, frames);
            size_t fixed = kind == EL_ALLOC_SAMPLE ? 29 : 25;
            size_t len = cut == 0   ? p.len - 8  /* a frame short */
                         : cut == 1 ? fixed      /* no frames at all */
                         : cut == 2 ? 12         /* inside the weight */
                                    : fixed - 1; /* inside the depth */
            eb_var_event(&b, EL_USER_BINARY_MSG, 3, p.buf, len);
            eb_time_sample(&b, 4, 5, 1, 0, 1, frames); /* never reached */
            eb_block_end(&b, 5);
            eb_data_end(&b);
            for (int how = 0; how < 2; how++) {
                seen s;
                el_error err;
                ck_assert_int_eq(how ? stream_log(&b, &s, &err)
                                     : read_log(&b, &s, &err),
                                 EL_ERR_FORMAT);
                ck_assert_uint_eq(s.n, 1);
                ck_assert_uint_eq(err.offset, bad_at);
                ck_assert_msg(strstr(err.msg, "corrupt data"), "%s", err.msg);
                ck_assert_msg(strstr(err.msg, kind == EL_ALLOC_SAMPLE
                                                  ? "allocation sample"
                                                  : "time sample"),
                              "%s", err.msg);
                ck_assert_msg(strstr(err.msg, cut < 2    ? "frames"
                                              : cut == 2 ? "weight"
                                                         : "stack depth"),
                              "%s", err.msg);
            }
            eb_free(&p);
            eb_free(&b);
        }
    }
}
END_TEST

/* The payload check the reader runs in stream order agrees with the
 * decoder on binary messages, for every length, kind and depth, and
 * neither reads past the payload (exact allocations, for ASan). */
START_TEST(samples_check_matches_decode)
{
    for (uint8_t kind = 0; kind < 4; kind++) {
        for (unsigned depth = 0; depth < 6; depth++) {
            uint8_t buf[80];
            memset(buf, 0xab, sizeof(buf));
            memcpy(buf, "rtscope:", 8);
            buf[8] = kind;
            unsigned at = kind == EL_ALLOC_SAMPLE ? 27 : 23; /* depth */
            buf[at] = 0;
            buf[at + 1] = (uint8_t)depth;
            int sample = kind == EL_TIME_SAMPLE || kind == EL_ALLOC_SAMPLE;
            for (uint32_t len = 0; len <= sizeof(buf); len++) {
                uint8_t *pl = malloc(len ? len : 1);
                memcpy(pl, buf, len);
                el_event ev;
                memset(&ev, 0, sizeof(ev));
                ev.type = EL_USER_BINARY_MSG;
                ev.payload = pl;
                ev.payload_len = len;
                int ok = event_payload_ok(&ev);
                int decodes = el_event_decode(&ev, NULL) == EL_OK;
                ck_assert_msg(ok == decodes, "kind %u depth %u len %u", kind,
                              depth, len);
                /* the prefix alone (8 bytes) is no sample */
                int want = !sample || len < 9 || len >= at + 2 + 8 * depth;
                ck_assert_msg(decodes == want, "kind %u depth %u len %u", kind,
                              depth, len);
                if (decodes)
                    ck_assert_int_eq(el_sample_kind_of(&ev),
                                     sample && len >= 9 ? kind : 0);
                free(pl);
            }
        }
    }
}
END_TEST

Suite *samples_suite(void)
{
    Suite *s = suite_create("samples");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, samples_decoded);
    tcase_add_test(tc, samples_other_messages_unchanged);
    tcase_add_test(tc, samples_malformed_rejected);
    tcase_add_test(tc, samples_check_matches_decode);
    suite_add_tcase(s, tc);
    return s;
}
