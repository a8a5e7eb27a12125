/* librtscope-model's strmap (keys to owned strings, over the hash map):
 * replacing, key 0, many keys, counts. Leaks show under make asan. */
#include "rtscope/model/strmap.h"

#include <check.h>
#include <stdio.h>

Suite *strmap_suite(void);

START_TEST(strmap_put_get_replace)
{
    strmap *m = strmap_new();
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_null(strmap_get(m, 5));
    ck_assert_int_eq(strmap_put(m, 5, "five!", 4), 0);
    ck_assert_str_eq(strmap_get(m, 5), "five"); /* len bytes, terminated */
    ck_assert_int_eq(strmap_put(m, 5, "FIVE", 4), 0);
    ck_assert_str_eq(strmap_get(m, 5), "FIVE");
    ck_assert_int_eq(strmap_put(m, 0, "zero", 4), 0); /* a cost centre 0 */
    ck_assert_str_eq(strmap_get(m, 0), "zero");
    ck_assert_uint_eq(strmap_count(m), 2);
    char buf[32];
    for (uint64_t k = 1000; k < 21000; k++) {
        int n = snprintf(buf, sizeof(buf), "s%llu", (unsigned long long)k);
        ck_assert_int_eq(strmap_put(m, k << 4, buf, (size_t)n), 0);
    }
    ck_assert_uint_eq(strmap_count(m), 20002);
    ck_assert_str_eq(strmap_get(m, 12345 << 4), "s12345");
    ck_assert_ptr_null(strmap_get(m, 12345));
    strmap_free(m);
    strmap_free(NULL);
}
END_TEST

Suite *strmap_suite(void)
{
    Suite *s = suite_create("strmap");
    TCase *tc = tcase_create("map");
    tcase_add_test(tc, strmap_put_get_replace);
    suite_add_tcase(s, tc);
    return s;
}
