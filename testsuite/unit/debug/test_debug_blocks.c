/* Unit tests of debug_blocks (consumer/lib/debug): sorting and checking a
 * block list (a snapshot file could hold anything), finding the group of
 * an address, counting megablocks. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_blocks.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

void test_debug_blocks_add(TCase *tc);

START_TEST(blocks_sorted_lookup)
{
    dbg_block v[3] = {
        {.flags = DBG_BF_PINNED, .start = 0x4200102000ULL, .size = 4096},
        {.flags = 0, .start = 0x4200000000ULL, .size = 8192},
        {.flags = DBG_BF_LARGE, .start = 0x42000ff000ULL, .size = 3 * 4096},
    };
    char err[200];
    ck_assert_int_eq(dbg_blocks_sort_check(v, 3, err, sizeof(err)), 0);
    ck_assert(v[0].start == 0x4200000000ULL && v[0].size == 8192);
    ck_assert(v[1].flags == DBG_BF_LARGE && v[2].flags == DBG_BF_PINNED);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x4200000000ULL), 0);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x4200001fffULL), 0);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x4200002000ULL), -1);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x4200100800ULL), 1);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x4200102010ULL), 2);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x4200103000ULL), -1);
    ck_assert_int_eq(dbg_blocks_find(v, 3, 0x10), -1);
    ck_assert_int_eq(dbg_blocks_find(v, 0, 0x4200000000ULL), -1);
    /* megablocks 0x42000 and 0x42001: the large group spans both */
    ck_assert_uint_eq(dbg_blocks_mblocks(v, 3), 2);
    ck_assert_uint_eq(dbg_blocks_mblocks(v, 0), 0);
    ck_assert_int_eq(dbg_blocks_sort_check(v, 0, err, sizeof(err)), 0);
}
END_TEST

START_TEST(blocks_bad_lists)
{
    char err[200];
    dbg_block zero = {.start = 0x4200000000ULL, .size = 0};
    ck_assert_int_eq(dbg_blocks_sort_check(&zero, 1, err, sizeof(err)), -1);
    ck_assert(strstr(err, "bad group") != NULL);
    dbg_block odd = {.start = 0x4200000000ULL, .size = 100};
    ck_assert_int_eq(dbg_blocks_sort_check(&odd, 1, err, sizeof(err)), -1);
    dbg_block unaligned = {.start = 0x4200000010ULL, .size = 4096};
    ck_assert_int_eq(dbg_blocks_sort_check(&unaligned, 1, err, sizeof(err)),
                     -1);
    dbg_block wraps = {.start = 0xfffffffffffff000ULL, .size = 8192};
    ck_assert_int_eq(dbg_blocks_sort_check(&wraps, 1, err, sizeof(err)), -1);
    dbg_block overlap[2] = {
        {.start = 0x4200001000ULL, .size = 4096},
        {.start = 0x4200000000ULL, .size = 8192},
    };
    ck_assert_int_eq(dbg_blocks_sort_check(overlap, 2, err, sizeof(err)), -1);
    ck_assert(strstr(err, "overlap") != NULL);
}
END_TEST

void test_debug_blocks_add(TCase *tc)
{
    tcase_add_test(tc, blocks_sorted_lookup);
    tcase_add_test(tc, blocks_bad_lists);
}
