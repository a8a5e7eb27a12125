/* librtscope-base: the hash map (both uses, growth, iteration, reuse after
 * free), the string hash and GHC's closure types. */
#include "rtscope/base/closure_types.h"
#include "rtscope/base/hmap.h"
#include "rtscope/strhash.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(numbers_as_keys)
{
    hmap m = {0};
    for (uint64_t k = 1; k <= 100000; k++)
        ck_assert_int_eq(hmap_put(&m, k * 8, k), 0);
    ck_assert_int_eq(hmap_put(&m, 16, 99), 0); /* replaces */
    ck_assert_uint_eq(m.n, 100000);
    ck_assert_uint_le(m.n * 2, m.cap); /* at most half full */
    uint64_t v;
    ck_assert(hmap_get(&m, 16, &v));
    ck_assert_uint_eq(v, 99);
    ck_assert(hmap_get(&m, 800000, &v));
    ck_assert_uint_eq(v, 100000);
    ck_assert(!hmap_get(&m, 12, &v));
    ck_assert(!hmap_get(&m, 0, &v)); /* 0 is a key like the others */
    ck_assert_int_eq(hmap_put(&m, 0, 7), 0);
    ck_assert(hmap_get(&m, 0, &v));
    ck_assert_uint_eq(v, 7);
    ck_assert_uint_eq(m.n, 100001);
    hmap_free(&m);
    ck_assert_ptr_null(m.keys);
    ck_assert(!hmap_get(&m, 16, &v)); /* a freed map is an empty one */
}
END_TEST

START_TEST(counters)
{
    hmap m = {0};
    int added;
    for (int round = 0; round < 3; round++)
        for (uint64_t k = 1; k <= 1000; k++) {
            uint64_t *c = hmap_at(&m, k, &added);
            ck_assert_ptr_nonnull(c);
            ck_assert_int_eq(added, round == 0);
            *c += k;
        }
    uint64_t v;
    ck_assert(hmap_get(&m, 7, &v));
    ck_assert_uint_eq(v, 21);
    uint64_t *z = hmap_at(&m, 0, &added);
    ck_assert(z && added && *z == 0);
    *z = 5;
    ck_assert_ptr_eq(hmap_at(&m, 0, &added), z);
    ck_assert(!added);
    hmap_free(&m);
}
END_TEST

/* Entries kept by the caller: strings whose hashes all collide. */
static const char *const words[] = {"alpha", "beta", "gamma", "delta", ""};

static int word_eq(const void *ctx, uint64_t val)
{
    return strcmp(words[val], ctx) == 0;
}

START_TEST(entries_by_hash)
{
    hmap m = {0};
    for (uint64_t i = 0; i < 5; i++)
        ck_assert_int_eq(hmap_add(&m, i == 4 ? 0 : 42, i), 0);
    uint64_t v;
    ck_assert(hmap_find(&m, 42, word_eq, "gamma", &v));
    ck_assert_uint_eq(v, 2);
    ck_assert(hmap_find(&m, 42, word_eq, "alpha", &v));
    ck_assert_uint_eq(v, 0);
    ck_assert(!hmap_find(&m, 42, word_eq, "epsilon", &v));
    ck_assert(!hmap_find(&m, 43, word_eq, "gamma", &v)); /* another hash */
    ck_assert(hmap_find(&m, 0, word_eq, "", &v));        /* hash 0 works */
    ck_assert_uint_eq(v, 4);
    ck_assert(!hmap_find(&m, 0, word_eq, "beta", &v));
    hmap_free(&m);
}
END_TEST

START_TEST(iterate_and_free)
{
    hmap m = {0};
    ck_assert_int_eq(hmap_reserve(&m, 5000), 0);
    size_t cap = m.cap;
    ck_assert_uint_ge(cap, 10000);
    uint64_t sum = 0;
    for (uint64_t k = 0; k < 5000; k++) {
        ck_assert_int_eq(hmap_put(&m, k << 20, k), 0);
        sum += k;
    }
    ck_assert_uint_eq(m.cap, cap); /* reserved: no growth */
    size_t pos = 0, n = 0;
    uint64_t key, val, got = 0;
    while (hmap_next(&m, &pos, &key, &val)) {
        ck_assert_uint_eq(key, val << 20);
        got += val;
        n++;
    }
    ck_assert_uint_eq(n, 5000);
    ck_assert_uint_eq(got, sum);
    hmap_free(&m); /* a freed map is an empty one, ready again */
    ck_assert_uint_eq(m.n, 0);
    ck_assert(!hmap_get(&m, 1 << 20, NULL));
    ck_assert(!hmap_get(&m, 0, NULL));
    pos = 0;
    ck_assert(!hmap_next(&m, &pos, &key, &val));
    ck_assert_int_eq(hmap_put(&m, 1 << 20, 9), 0);
    ck_assert(hmap_get(&m, 1 << 20, &val) && val == 9);
    hmap_free(&m);
}
END_TEST

START_TEST(closure_type_names)
{
    ck_assert_str_eq(ghc_closure_type_name(GHC_TSO), "TSO");
    ck_assert_str_eq(ghc_closure_type_name(GHC_CONSTR_NOCAF), "CONSTR_NOCAF");
    ck_assert_str_eq(ghc_closure_type_name(GHC_COMPACT_NFDATA),
                     "COMPACT_NFDATA");
    ck_assert_str_eq(ghc_closure_type_name(0), "INVALID_OBJECT");
    ck_assert_str_eq(ghc_closure_type_name(200), "UNKNOWN");
    ck_assert(ghc_type_is_constr(GHC_CONSTR + 2));
    ck_assert(!ghc_type_is_constr(GHC_FUN));
    ck_assert(ghc_type_is_thunk(GHC_THUNK_STATIC));
    ck_assert(!ghc_type_is_thunk(GHC_THUNK_SELECTOR));
    ck_assert(ghc_type_is_frame(GHC_UPDATE_FRAME));
    ck_assert(ghc_type_is_frame(GHC_CATCH_STM_FRAME));
    ck_assert(!ghc_type_is_frame(GHC_BLOCKING_QUEUE));
    ck_assert(ghc_type_is_array(GHC_MUT_ARR_PTRS_FROZEN_CLEAN));
    ck_assert(ghc_type_is_small_array(GHC_SMALL_MUT_ARR_PTRS_CLEAN + 1));
}
END_TEST

/* The string hash reads only s[0, len) (each string is its own exact
 * allocation, so the ASan build catches a load past it), depends on every
 * byte and on the length, and not on where the string is. */
START_TEST(string_hash)
{
    hmap seen = {0};
    char *buf = malloc(64);
    ck_assert_ptr_nonnull(buf);
    for (size_t len = 0; len <= 40; len++) {
        char *s = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(s);
        for (size_t i = 0; i < len; i++)
            s[i] = (char)('a' + i % 26);
        uint64_t h = rtscope_strhash(s, len);
        memcpy(buf + 3, s, len); /* the same bytes elsewhere */
        ck_assert_uint_eq(rtscope_strhash(buf + 3, len), h);
        int added;
        ck_assert_ptr_nonnull(hmap_at(&seen, h, &added));
        ck_assert_int_eq(added, 1); /* no two lengths of one text collide */
        for (size_t i = 0; i < len; i++) { /* each byte counts */
            s[i] ^= 1;
            ck_assert_uint_ne(rtscope_strhash(s, len), h);
            s[i] ^= 1;
        }
        free(s);
    }
    /* zero bytes count too: "a\0" is not "a" */
    ck_assert_uint_ne(rtscope_strhash("a\0", 2), rtscope_strhash("a", 1));
    ck_assert_uint_ne(rtscope_strhash("\0\0\0", 3),
                      rtscope_strhash("\0\0", 2));
    free(buf);
    hmap_free(&seen);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("hmap");
    tcase_add_test(tc, numbers_as_keys);
    tcase_add_test(tc, counters);
    tcase_add_test(tc, entries_by_hash);
    tcase_add_test(tc, string_hash);
    tcase_add_test(tc, iterate_and_free);
    tcase_add_test(tc, closure_type_names);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
