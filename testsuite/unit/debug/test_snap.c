/* Unit tests of debug snapshots (consumer/lib/debug/debug_snap.c): write
 * and load back, the walk over a loaded snapshot, and the loader on
 * truncated, corrupted and foreign input. */
#define _GNU_SOURCE
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/debug_snap.h"
#include "snap_fixture.h"
#include "snap_impl.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TCase *snap_tcase(void);

/* s written to a temporary file (and freed), read back into memory. */
static unsigned char *snap_file(dbg_snap *s, size_t *len)
{
    char path[] = "/tmp/rtscope-snap-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    uint64_t bytes = 0;
    ck_assert_msg(dbg_snap_write(s, path, 3, &bytes) == 0, "%s", s->err);
    dbg_snap_free(s);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *p = malloc(bytes);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(fread(p, 1, bytes, f), bytes);
    fclose(f);
    unlink(path);
    *len = (size_t)bytes;
    return p;
}

/* The fixture written to a temporary file and read back into memory. */
static unsigned char *fixture_file(size_t *len)
{
    dbg_snap s;
    dbg_snap_init(&s);
    ck_assert_int_eq(snapfix_build(&s), 0);
    return snap_file(&s, len);
}

typedef struct walk_acc {
    size_t n, bytes, leaks;
    dbg_heap *h;
    uint64_t parent_of_static;
} walk_acc;

static int count_visit(void *ctx, const dbg_closure *c, uint64_t parent)
{
    walk_acc *a = ctx;
    a->n++;
    a->bytes += c->size;
    const char *con = dbg_heap_con_descr(a->h, c->info);
    if (con && dbg_con_matches(con, "Leak"))
        a->leaks++;
    if (c->addr == SNAPFIX_STATIC)
        a->parent_of_static = parent;
    ck_assert_ptr_nonnull(c->mem);
    return 0;
}

static void walk(dbg_snap *s, walk_acc *a, dbg_heap *h)
{
    dbg_heap_init_source(h, &dbg_source_snap, s);
    memset(a, 0, sizeof(*a));
    a->h = h;
    uint64_t *roots;
    size_t n;
    ck_assert_int_eq(dbg_heap_roots(h, &roots, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_msg(dbg_heap_walk(h, roots, n, count_visit, a) == 0, "%s",
                  h->err);
    free(roots);
}

/* A program's strings reach every output through the loader: a snapshot
 * whose program name and info-table strings carry escape sequences (its
 * checksums valid) loads with them written as text, so no census,
 * dominators or explore line can clear the screen or forge a line. */
static int has_ctl(const char *x)
{
    for (const unsigned char *p = (const unsigned char *)x; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return 1;
    return 0;
}

START_TEST(snap_escapes_program_strings)
{
    dbg_snap s;
    dbg_snap_init(&s);
    ck_assert_int_eq(snapfix_build(&s), 0);
    snprintf(s.program, sizeof(s.program), "ev\x1b[2Jil\x9b");
    const char *evil = "Leak\x1b]0;pwned\x07\nforged line\xc2\x9b" "31m\x7f";
    for (size_t i = 0; i < s.ninfos; i++) {
        if (s.infos[i].con) {
            free(s.infos[i].con);
            s.infos[i].con = strdup(evil);
        }
        if (s.infos[i].nsrc) {
            free(s.infos[i].src[4]);
            s.infos[i].src[4] = strdup(evil);
        }
    }
    size_t len;
    unsigned char *p = snap_file(&s, &len);
    dbg_snap l;
    ck_assert_msg(dbg_snap_load_mem(&l, p, len, 0) == 0, "%s", l.err);
    ck_assert(!has_ctl(l.program));
    size_t cons = 0, srcs = 0;
    for (size_t i = 0; i < l.ninfos; i++) {
        if (l.infos[i].con) {
            cons++;
            ck_assert(!has_ctl(l.infos[i].con));
            ck_assert_str_eq(l.infos[i].con, "Leak\\x1b]0;pwned\\x07\\x0aforged "
                                             "line\\u009b31m\\x7f");
        }
        for (int k = 0; k < l.infos[i].nsrc; k++, srcs++)
            ck_assert(!has_ctl(l.infos[i].src[k]));
    }
    ck_assert_uint_gt(cons, 0);
    ck_assert_uint_gt(srcs, 0);
    dbg_snap_free(&l);
    free(p);
}
END_TEST

START_TEST(snap_roundtrip)
{
    size_t len;
    unsigned char *p = fixture_file(&len);
    ck_assert(dbg_snap_is_snapshot(p, len));
    dbg_snap s;
    ck_assert_msg(dbg_snap_load_mem(&s, p, len, 0) == 0, "%s", s.err);
    ck_assert_uint_eq(s.nclo, SNAPFIX_CLOSURES);
    ck_assert_uint_eq(dbg_snap_live_bytes(&s), SNAPFIX_BYTES);
    ck_assert_uint_eq(s.nblocks, 1);
    ck_assert_uint_eq(s.blocks[0].start, SNAPFIX_HEAP);
    dbg_heap h;
    walk_acc a;
    walk(&s, &a, &h);
    /* everything, through the PAP's bitmap and the stack's frames */
    ck_assert_uint_eq(a.n, SNAPFIX_CLOSURES);
    ck_assert_uint_eq(a.bytes, SNAPFIX_BYTES);
    ck_assert_uint_eq(a.leaks, 1);
    ck_assert_uint_eq(h.unreadable, 0);
    /* the static is reached from the thunk's SRT, the thunk from the stack */
    ck_assert_uint_eq(a.parent_of_static, SNAPFIX_HEAP + 0x30);
    dbg_info *in = dbg_heap_info(&h, 0x401200);
    ck_assert_ptr_nonnull(in);
    char *const *src = dbg_heap_source(&h, in);
    ck_assert_ptr_nonnull(src);
    ck_assert_str_eq(src[5], "Fix.hs:5:7-9");
    dbg_block *b;
    size_t nb;
    ck_assert_int_eq(dbg_heap_blocks(&h, &b, &nb), 0);
    ck_assert_uint_eq(nb, 1);
    free(b);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
    free(p);
}
END_TEST

/* The fixture as recorded (not written) serves the same walk. */
START_TEST(snap_in_memory)
{
    dbg_snap s;
    dbg_snap_init(&s);
    ck_assert_int_eq(snapfix_build(&s), 0);
    dbg_heap h;
    walk_acc a;
    walk(&s, &a, &h);
    ck_assert_uint_eq(a.n, SNAPFIX_CLOSURES);
    dbg_heap_free(&h);
    dbg_snap_free(&s);
}
END_TEST

START_TEST(snap_truncated)
{
    size_t len;
    unsigned char *p = fixture_file(&len);
    for (size_t n = 0; n < len; n++) {
        dbg_snap s;
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, p, n);
        ck_assert_msg(dbg_snap_load_mem(&s, cut, n, 0) != 0,
                      "truncated to %zu bytes but loaded", n);
        ck_assert_msg(strncmp(s.err, "offset ", 7) == 0, "%zu: %s", n, s.err);
        free(cut);
    }
    free(p);
}
END_TEST

START_TEST(snap_flipped)
{
    size_t len;
    unsigned char *p = fixture_file(&len);
    for (size_t i = 0; i < len; i++) {
        dbg_snap s;
        p[i] ^= 0x21;
        int r = dbg_snap_load_mem(&s, p, len, 0);
        p[i] ^= 0x21;
        ck_assert_msg(r != 0, "byte %zu flipped but loaded", i);
        ck_assert_msg(s.err[0] != '\0', "byte %zu: no message", i);
    }
    free(p);
}
END_TEST

/* Recompute the header checksum of a snapshot after editing its header. */
static void reseal_header(unsigned char *p)
{
    unsigned char head[TABLE_END];
    memcpy(head, p, TABLE_END);
    memset(head + 20, 0, 4);
    le_put(p + 20, sum_of(head, TABLE_END) & 0xffffffffu, 4);
}

START_TEST(snap_foreign)
{
    dbg_snap s;
    static const unsigned char elf[] = "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0";
    ck_assert(!dbg_snap_is_snapshot(elf, sizeof(elf)));
    ck_assert_int_ne(dbg_snap_load_mem(&s, elf, sizeof(elf), 0), 0);
    ck_assert(strstr(s.err, "not an rtscope snapshot") != NULL);
    size_t len;
    unsigned char *p = fixture_file(&len);
    /* a newer version: refused by version before anything else */
    ck_assert_int_eq(p[8], DBG_SNAP_VERSION);
    p[8] = DBG_SNAP_VERSION + 1;
    ck_assert_int_ne(dbg_snap_load_mem(&s, p, len, 0), 0);
    ck_assert_msg(strstr(s.err, "format version 3") != NULL, "%s", s.err);
    /* version 1 (before pointer maps) is still read */
    p[8] = 1;
    reseal_header(p);
    ck_assert_msg(dbg_snap_load_mem(&s, p, len, 0) == 0, "%s", s.err);
    dbg_snap_free(&s);
    p[8] = DBG_SNAP_VERSION;
    reseal_header(p);
    /* a bound on the decompressed size is kept */
    ck_assert_int_ne(dbg_snap_load_mem(&s, p, len, 64), 0);
    ck_assert_msg(strstr(s.err, "more than allowed") != NULL, "%s", s.err);
    ck_assert_int_eq(dbg_snap_load_mem(&s, p, len, 0), 0);
    dbg_snap_free(&s);
    free(p);
}
END_TEST

/* dbg_snap_finish sorts closures by address (a radix sort): many
 * closures in walk order, spread over several bytes of address, come out
 * in order, each still with its own memory. */
START_TEST(snap_sorts_closures)
{
    dbg_snap s;
    dbg_snap_init(&s);
    uint64_t x = 88172645463325252ULL;
    enum { N = 50000 };
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* distinct: the index in the low bits, noise above */
        uint64_t addr =
            0x4200000000ULL + ((x & 0xffffff) << 20) + (uint64_t)i * 8;
        unsigned char mem[16];
        memcpy(mem, &addr, 8);
        memcpy(mem + 8, &addr, 8);
        ck_assert_int_eq(dbg_snap_add_closure(&s, addr, mem, 16), 0);
    }
    ck_assert_int_eq(dbg_snap_finish(&s), 0);
    ck_assert_uint_eq(s.nclo, N);
    for (size_t i = 0; i < s.nclo; i++) {
        if (i)
            ck_assert(s.clo[i - 1].addr < s.clo[i].addr);
        uint64_t held;
        memcpy(&held, s.mem.p + s.clo[i].off, 8);
        ck_assert_uint_eq(held, s.clo[i].addr);
    }
    dbg_snap_free(&s);
    /* with an address twice (no walk records one so) */
    dbg_snap_init(&s);
    for (int i = 0; i < N; i++) {
        uint64_t addr = 0x4200000000ULL + (((uint64_t)(i * 7919) % N) << 12);
        if (i == N / 2)
            addr = s.clo[0].addr;
        unsigned char mem[8];
        memcpy(mem, &addr, 8);
        ck_assert_int_eq(dbg_snap_add_closure(&s, addr, mem, 8), 0);
    }
    ck_assert_int_eq(dbg_snap_finish(&s), 0);
    for (size_t i = 1; i < s.nclo; i++)
        ck_assert(s.clo[i - 1].addr <= s.clo[i].addr);
    dbg_snap_free(&s);
}
END_TEST

/* A path that is not a regular file (a FIFO here; /dev/null as root is the
 * case that matters) is refused with its name, and stays what it was: the
 * write-beside-and-rename would have replaced it with a file. */
START_TEST(snap_not_regular)
{
    char dir[] = "/tmp/rtscope-snapdir-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char fifo[64], tmp[80];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    dbg_snap s;
    dbg_snap_init(&s);
    ck_assert_int_eq(snapfix_build(&s), 0);
    uint64_t bytes = 0;
    ck_assert_int_eq(dbg_snap_write(&s, fifo, 3, &bytes), -1);
    ck_assert_msg(strstr(s.err, "not a regular file") && strstr(s.err, fifo),
                  "%s", s.err);
    struct stat st;
    ck_assert_int_eq(stat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    ck_assert_int_ne(access(tmp, F_OK), 0);
    ck_assert_int_eq(dbg_snap_write(&s, dir, 3, &bytes), -1); /* a directory */
    ck_assert_ptr_nonnull(strstr(s.err, "not a regular file"));
    dbg_snap_free(&s);
    unlink(fifo);
    rmdir(dir);
}
END_TEST

TCase *snap_tcase(void)
{
    TCase *tc = tcase_create("snapshot");
    tcase_add_test(tc, snap_roundtrip);
    tcase_add_test(tc, snap_escapes_program_strings);
    tcase_add_test(tc, snap_in_memory);
    tcase_add_test(tc, snap_truncated);
    tcase_add_test(tc, snap_flipped);
    tcase_add_test(tc, snap_foreign);
    tcase_add_test(tc, snap_not_regular);
    tcase_add_test(tc, snap_sorts_closures);
    return tc;
}
