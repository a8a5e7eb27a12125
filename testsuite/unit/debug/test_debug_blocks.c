/* Unit tests of debug_blocks (consumer/lib/debug): parsing BLOCKS
 * replies, good and malformed, the address lookup and megablock count. */
#define _GNU_SOURCE
#include "debug_blocks.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

void test_debug_blocks_add(TCase *tc);

/* Append a BLOCKS entry: flags, start, size, then `size` bytes. */
static void entry(dbg_buf *b, uint16_t flags, uint64_t start, uint32_t size)
{
    dbg_buf_put(b, &flags, 2);
    dbg_buf_putptr(b, start);
    dbg_buf_put32(b, size);
    for (uint32_t i = 0; i < size; i++)
        dbg_buf_put8(b, 0xaa);
}

START_TEST(blocks_parse_sorted)
{
    dbg_buf b = {0};
    entry(&b, DBG_BF_PINNED, 0x4200102000ULL, 4096);
    entry(&b, 0, 0x4200000000ULL, 8192);
    entry(&b, DBG_BF_LARGE, 0x42000ff000ULL, 3 * 4096); /* spans 2 MBs */
    dbg_block *v;
    size_t n;
    char err[200];
    ck_assert_int_eq(dbg_blocks_parse(b.p, b.len, &v, &n, err, sizeof(err)), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert(v[0].start == 0x4200000000ULL && v[0].size == 8192);
    ck_assert(v[1].flags == DBG_BF_LARGE && v[2].flags == DBG_BF_PINNED);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x4200000000ULL), 0);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x4200001fffULL), 0);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x4200002000ULL), -1);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x4200100800ULL), 1);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x4200102010ULL), 2);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x4200103000ULL), -1);
    ck_assert_int_eq(dbg_blocks_find(v, n, 0x10), -1);
    /* megablocks 0x42000, 0x42001 (the large group and the pinned one) */
    ck_assert_uint_eq(dbg_blocks_mblocks(v, n), 2);
    free(v);
    ck_assert_int_eq(dbg_blocks_parse(NULL, 0, &v, &n, err, sizeof(err)), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(dbg_blocks_mblocks(v, n), 0);
    free(v);
    dbg_buf_free(&b);
}
END_TEST

START_TEST(blocks_parse_malformed)
{
    dbg_buf b = {0};
    dbg_block *v = (dbg_block *)1;
    size_t n = 7;
    char err[200];
    /* truncated header */
    entry(&b, 0, 0x4200000000ULL, 4096);
    ck_assert_int_eq(dbg_blocks_parse(b.p, 10, &v, &n, err, sizeof(err)), -1);
    ck_assert(v == NULL && n == 0);
    ck_assert(strstr(err, "truncated") != NULL);
    /* memory shorter than the size says */
    ck_assert_int_eq(dbg_blocks_parse(b.p, b.len - 1, &v, &n, err, sizeof(err)), -1);
    ck_assert(strstr(err, "bad group") != NULL);
    /* size not a multiple of a block, zero size, unaligned start */
    dbg_buf c = {0};
    entry(&c, 0, 0x4200000000ULL, 100);
    ck_assert_int_eq(dbg_blocks_parse(c.p, c.len, &v, &n, err, sizeof(err)), -1);
    c.len = 0;
    entry(&c, 0, 0x4200000000ULL, 0);
    ck_assert_int_eq(dbg_blocks_parse(c.p, c.len, &v, &n, err, sizeof(err)), -1);
    c.len = 0;
    entry(&c, 0, 0x4200000010ULL, 4096);
    ck_assert_int_eq(dbg_blocks_parse(c.p, c.len, &v, &n, err, sizeof(err)), -1);
    /* overlapping groups */
    c.len = 0;
    entry(&c, 0, 0x4200000000ULL, 8192);
    entry(&c, 0, 0x4200001000ULL, 4096);
    ck_assert_int_eq(dbg_blocks_parse(c.p, c.len, &v, &n, err, sizeof(err)), -1);
    ck_assert(strstr(err, "overlap") != NULL);
    dbg_buf_free(&b);
    dbg_buf_free(&c);
}
END_TEST

void test_debug_blocks_add(TCase *tc)
{
    tcase_add_test(tc, blocks_parse_sorted);
    tcase_add_test(tc, blocks_parse_malformed);
}
