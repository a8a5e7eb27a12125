/* The synthetic heap of snap_fixture.h. Words are host order, as the stub
 * sends them. */
#include "snap_fixture.h"

#include <stdlib.h>
#include <string.h>

#define H SNAPFIX_HEAP
enum {
    I_LEAK = 0x401000,
    I_INT = 0x401100,
    I_THUNK = 0x401200,
    I_STATIC = 0x401300,
    I_PAP = 0x401400,
    I_FUN = 0x401500,
    I_TSO = 0x401600,
    I_STACK = 0x401700,
    I_RET = 0x401800,
    I_STOP = 0x401900,
};

int snapfix_closure(dbg_snap *s, uint64_t addr, const uint64_t *w, size_t n)
{
    return dbg_snap_add_closure(s, addr, (const unsigned char *)w,
                                (uint32_t)(n * 8));
}

int snapfix_info(dbg_snap *s, uint64_t ptr, uint32_t type, uint32_t ptrs,
                 uint32_t nptrs, uint64_t srt, const char *con, const char *mod,
                 const char *span)
{
    dbg_info in = {
        .ptr = ptr, .type = type, .ptrs = ptrs, .nptrs = nptrs, .srt = srt};
    char *src[DBG_SOURCE_FIELDS] = {"name", "1", "type", "", NULL, NULL};
    src[4] = (char *)mod;
    src[5] = (char *)span;
    return dbg_snap_add_info(s, &in, con, mod ? src : NULL);
}

int snapfix_bitmap(dbg_snap *s, int stack, uint64_t key, uint32_t n,
                   const unsigned char *bits)
{
    unsigned char *b = malloc(4 + (size_t)n);
    if (!b)
        return -1;
    b[0] = (unsigned char)(n >> 24);
    b[1] = (unsigned char)(n >> 16);
    b[2] = (unsigned char)(n >> 8);
    b[3] = (unsigned char)n;
    if (n)
        memcpy(b + 4, bits, n);
    int r = stack ? dbg_snap_add_stack_bitmap(s, key, b, 4 + (size_t)n)
                  : dbg_snap_add_fun_bitmap(s, key, b, 4 + (size_t)n);
    free(b);
    return r;
}

int snapfix_build(dbg_snap *s)
{
    int r = 0;
    /* Leak 1 (I# 42) 7 9 at H; I# 42 at H+0x20 */
    r |= snapfix_closure(s, H, (const uint64_t[]){I_LEAK, H + 0x20 + 1, 7, 9},
                         4);
    r |= snapfix_closure(s, H + 0x20, (const uint64_t[]){I_INT, 42}, 2);
    /* a thunk (header + padding word) holding the Leak, SRT: the static */
    r |= snapfix_closure(s, H + 0x30, (const uint64_t[]){I_THUNK, 0, H + 1}, 3);
    /* PAP: arity 2, nargs 1, fun at H+0x68, one pointer argument */
    r |= snapfix_closure(
        s, H + 0x48,
        (const uint64_t[]){I_PAP, 2 | (1ULL << 32), H + 0x68, H + 0x20}, 4);
    r |= snapfix_closure(s, H + 0x68, (const uint64_t[]){I_FUN}, 1);
    /* TSO: its stack object in word 3 */
    r |= snapfix_closure(s, H + 0x70,
                         (const uint64_t[]){I_TSO, 0, 0, H + 0x100}, 4);
    /* STACK: 4 words of stack, sp at word 3: a RET_SMALL frame with one
     * pointer (the thunk), then the STOP_FRAME */
    r |= snapfix_closure(
        s, H + 0x100,
        (const uint64_t[]){I_STACK, 4, H + 0x118, I_RET, H + 0x30, I_STOP, 0},
        7);
    r |= snapfix_closure(s, SNAPFIX_STATIC, (const uint64_t[]){I_STATIC}, 1);
    /* not reachable: a snapshot may hold it, the walk never sees it */
    r |= snapfix_info(s, I_LEAK, GHC_CONSTR, 1, 2, 0, "main:Main.Leak", "Main",
                      "Fix.hs:3:1-20");
    r |= snapfix_info(s, I_INT, 3 /* CONSTR_0_1 */, 0, 1, 0,
                      "ghc-prim:GHC.Types.I#", NULL, NULL);
    r |= snapfix_info(s, I_THUNK, GHC_THUNK, 1, 0, SNAPFIX_STATIC, NULL, "Main",
                      "Fix.hs:5:7-9");
    r |= snapfix_info(s, I_STATIC, GHC_FUN_STATIC, 0, 0, 0, NULL, NULL, NULL);
    r |= snapfix_info(s, I_PAP, GHC_PAP, 0, 0, 0, NULL, NULL, NULL);
    r |= snapfix_info(s, I_FUN, GHC_FUN, 0, 0, 0, NULL, "Main", "Fix.hs:9:1-5");
    r |= snapfix_info(s, I_TSO, GHC_TSO, 0, 0, 0, NULL, NULL, NULL);
    r |= snapfix_info(s, I_STACK, GHC_STACK, 0, 0, 0, NULL, NULL, NULL);
    r |= snapfix_info(s, I_RET, GHC_RET_SMALL, 0, 0, 0, NULL, NULL, NULL);
    r |= snapfix_info(s, I_STOP, GHC_STOP_FRAME, 0, 0, 0, NULL, NULL, NULL);
    r |= snapfix_bitmap(s, 1, H + 0x118, 1, (const unsigned char[]){1});
    r |= snapfix_bitmap(s, 0, H + 0x68, 1, (const unsigned char[]){1});
    const uint64_t roots[] = {H + 1, H + 0x70, H + 0x48};
    r |= dbg_snap_set_roots(s, roots, 3);
    const dbg_block b = {.flags = 0, .start = H, .size = 4096};
    r |= dbg_snap_set_blocks(s, &b, 1);
    r |= dbg_snap_finish(s);
    return r ? -1 : 0;
}
