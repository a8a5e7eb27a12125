/* Check unit tests for rtscope's sample events (EL_TIME_SAMPLE,
 * EL_ALLOC_SAMPLE): decoded only when the header declares them as
 * rtscope's RTS does (Note [rtscope's sample events] in typetab.c), with
 * their frames bounded by the payload; read through the reader as a sink
 * gets them. */
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

/* What a sink saw of the sample events of a log. */
typedef struct seen {
    unsigned n, unknown;
    uint16_t type[8];
    uint64_t weight[8];
    uint32_t thread[8], size[8];
    uint16_t flags[8], depth[8];
    uint64_t frame0[8], last_frame[8];
} seen;

static int see(void *ctx, const el_event *ev, const el_typetab *types)
{
    seen *s = ctx;
    (void)types;
    if (ev->type != EL_TIME_SAMPLE && ev->type != EL_ALLOC_SAMPLE)
        return 0;
    if (!ev->known) {
        s->unknown++;
        return 0;
    }
    ck_assert_uint_lt(s->n, 8);
    unsigned i = s->n++;
    s->type[i] = ev->type;
    s->weight[i] = ev->u.stack_sample.weight;
    s->thread[i] = ev->u.stack_sample.thread;
    s->size[i] = ev->u.stack_sample.size;
    s->flags[i] = ev->u.stack_sample.flags;
    s->depth[i] = ev->u.stack_sample.depth;
    s->frame0[i] = el_sample_frame(ev, 0);
    s->last_frame[i] = ev->u.stack_sample.depth
                           ? el_sample_frame(ev, ev->u.stack_sample.depth - 1u)
                           : 0;
    /* past the depth: 0, never a read */
    ck_assert_uint_eq(el_sample_frame(ev, ev->u.stack_sample.depth), 0);
    return 0;
}

/* Read a log through a file, as every command does. */
static el_status read_log(const elbuild *b, seen *s, el_error *err,
                          el_reader_result *res)
{
    char path[] = "/tmp/rtscope-samples-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b->buf, b->len), (ssize_t)b->len);
    close(fd);
    memset(s, 0, sizeof(*s));
    el_status st = el_reader_run(path, NULL, see, s, res, err);
    unlink(path);
    return st;
}

static const uint64_t frames[] = {0x401000, 0x402000, 0x403000,
                                  0xffffffff80001234ull};

START_TEST(samples_decoded_when_declared)
{
    elbuild b;
    eb_init(&b);
    eb_header_std_decl(&b, 2, eb_sample_decls);
    eb_block_begin(&b, 0, 1);
    eb_time_sample(&b, 2, 10000000, 7, 0, 4, frames);
    eb_alloc_sample(&b, 3, 524288, 8, 48, EL_SAMPLE_LATE, 2, frames);
    eb_alloc_sample(&b, 4, 524288, 9, 0,
                    EL_SAMPLE_LATE | EL_SAMPLE_TRUNCATED, 0, NULL);
    eb_block_end(&b, 5);
    eb_data_end(&b);
    seen s;
    el_error err;
    el_reader_result res;
    ck_assert_int_eq(read_log(&b, &s, &err, &res), EL_OK);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_uint_eq(s.type[0], EL_TIME_SAMPLE);
    ck_assert_uint_eq(s.weight[0], 10000000);
    ck_assert_uint_eq(s.thread[0], 7);
    ck_assert_uint_eq(s.size[0], 0);
    ck_assert_uint_eq(s.depth[0], 4);
    ck_assert_uint_eq(s.frame0[0], 0x401000);
    ck_assert_uint_eq(s.last_frame[0], 0xffffffff80001234ull);
    ck_assert_uint_eq(s.type[1], EL_ALLOC_SAMPLE);
    ck_assert_uint_eq(s.weight[1], 524288);
    ck_assert_uint_eq(s.thread[1], 8);
    ck_assert_uint_eq(s.size[1], 48);
    ck_assert_uint_eq(s.flags[1], EL_SAMPLE_LATE);
    ck_assert_uint_eq(s.depth[1], 2);
    ck_assert_uint_eq(s.last_frame[1], 0x402000);
    ck_assert_uint_eq(s.flags[2], EL_SAMPLE_LATE | EL_SAMPLE_TRUNCATED);
    ck_assert_uint_eq(s.depth[2], 0);
    eb_free(&b);
}
END_TEST

/* Another meaning of 240 and 241 (upstream's, one day): the header does
 * not declare them as rtscope's, so they are unknown events, read past as
 * today, whatever their payload. */
START_TEST(samples_other_declaration_ignored)
{
    static const eb_decl others[][2] = {
        {{240, 0xffff, "test event"}, {241, 0xffff, "Allocation samples"}},
        {{240, 0xffff, "Time sampl"}, {241, 0xffff, "allocation sample"}},
    };
    for (size_t h = 0; h < 2; h++) {
        elbuild b;
        eb_init(&b);
        eb_header_std_decl(&b, 2, others[h]);
        eb_block_begin(&b, 0, 1);
        eb_time_sample(&b, 2, 1, 1, 0, 1, frames);
        /* a depth far beyond the payload: not judged, not ours */
        eb_var_event(&b, EL_ALLOC_SAMPLE, 3, "\0\0\0\0\0\0\0\1", 8);
        eb_block_end(&b, 5);
        eb_data_end(&b);
        seen s;
        el_error err;
        el_reader_result res;
        ck_assert_int_eq(read_log(&b, &s, &err, &res), EL_OK);
        ck_assert_uint_eq(s.n, 0);
        ck_assert_uint_eq(s.unknown, 2);
        eb_free(&b);
    }
    /* declared with a fixed size: not rtscope's either */
    el_typetab *t = el_typetab_new();
    ck_assert_int_eq(el_typetab_declare(t, 240, 16, "Time sample", 11),
                     EL_OK);
    ck_assert_int_eq(el_typetab_is_sample(t, 240), 0);
    /* a description with a NUL inside is not the description */
    ck_assert_int_eq(
        el_typetab_declare(t, 241, 0xffff, "Allocation sample\0x", 19), EL_OK);
    ck_assert_int_eq(el_typetab_is_sample(t, 241), 0);
    /* declared again, rightly: now it is (a later declaration wins) */
    ck_assert_int_eq(el_typetab_declare(t, 240, 0xffff, "Time sample", 11),
                     EL_OK);
    ck_assert_int_eq(el_typetab_is_sample(t, 240), 1);
    ck_assert_int_eq(el_typetab_is_sample(t, 239), 0);
    el_typetab_free(t);
}
END_TEST

/* A sample whose depth promises more frames than its payload holds, or
 * whose payload ends inside its fixed fields, stops the read there with a
 * data error at its offset, after every event before it, and is never read
 * past its end. */
START_TEST(samples_malformed_rejected)
{
    for (int kind = 0; kind < 2; kind++) {
        for (int cut = 0; cut < 3; cut++) {
            elbuild b, p;
            eb_init(&b);
            eb_header_std_decl(&b, 2, eb_sample_decls);
            eb_block_begin(&b, 0, 1);
            eb_time_sample(&b, 2, 5, 1, 0, 1, frames); /* a good one first */
            size_t bad_at = b.len;
            eb_init(&p);
            eb_u64(&p, 524288);
            eb_u32(&p, 1);
            if (kind)
                eb_u32(&p, 32);
            eb_u16(&p, 0);
            eb_u16(&p, cut == 0 ? 3 : 0xffff); /* depth */
            eb_u64(&p, 0x401000);              /* one frame of 3 */
            eb_u64(&p, 0x402000);
            size_t len = cut == 2 ? 10 : p.len; /* 2: inside the fields */
            eb_var_event(&b, kind ? EL_ALLOC_SAMPLE : EL_TIME_SAMPLE, 3,
                         p.buf, len);
            eb_block_end(&b, 5);
            eb_data_end(&b);
            seen s;
            el_error err;
            el_reader_result res;
            ck_assert_int_eq(read_log(&b, &s, &err, &res), EL_ERR_FORMAT);
            ck_assert_uint_eq(s.n, 1);
            ck_assert_uint_eq(err.offset, bad_at);
            ck_assert_msg(strstr(err.msg, kind ? "alloc-sample" : "time-sample"),
                          "%s", err.msg);
            ck_assert_msg(strstr(err.msg, cut == 2 ? "lacks" : "frames"), "%s",
                          err.msg);
            eb_free(&p);
            eb_free(&b);
        }
    }
}
END_TEST

/* The payload check the reader runs in stream order agrees with the
 * decoder on the sample types too, for every length and depth. */
START_TEST(samples_check_matches_decode)
{
    el_typetab *t = el_typetab_new();
    el_typetab_declare(t, 240, 0xffff, "Time sample", 11);
    el_typetab_declare(t, 241, 0xffff, "Allocation sample", 17);
    uint8_t buf[64];
    for (unsigned type = 240; type <= 241; type++) {
        for (unsigned depth = 0; depth < 6; depth++) {
            memset(buf, 0xab, sizeof(buf));
            unsigned at = type == 240 ? 14 : 18; /* the depth field */
            buf[at] = 0;
            buf[at + 1] = (uint8_t)depth;
            for (uint32_t len = 0; len <= sizeof(buf); len++) {
                uint8_t *pl = malloc(len ? len : 1); /* exact, for ASan */
                memcpy(pl, buf, len);
                el_event ev;
                memset(&ev, 0, sizeof(ev));
                ev.type = (uint16_t)type;
                ev.payload = pl;
                ev.payload_len = len;
                int ok = event_payload_ok(&ev, t);
                int decodes = el_event_decode_in(&ev, t, NULL) == EL_OK;
                ck_assert_msg(ok == decodes, "type %u depth %u len %u", type,
                              depth, len);
                ck_assert_int_eq(decodes, len >= at + 2 + 8 * depth);
                /* without the header's word they are not samples */
                ck_assert_int_eq(el_event_decode(&ev, NULL), EL_OK);
                ck_assert_int_eq(ev.known, 0);
                free(pl);
            }
        }
    }
    el_typetab_free(t);
}
END_TEST

Suite *samples_suite(void)
{
    Suite *s = suite_create("samples");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, samples_decoded_when_declared);
    tcase_add_test(tc, samples_other_declaration_ignored);
    tcase_add_test(tc, samples_malformed_rejected);
    tcase_add_test(tc, samples_check_matches_decode);
    suite_add_tcase(s, tc);
    return s;
}
