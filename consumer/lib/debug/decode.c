/* Closure decoding for GHC 9.0's x86_64 layouts, non-profiled
 * (includes/rts/storage/Closures.h: a one-word header, thunks one extra
 * word): the pointers of a closure as the GC would follow them, from its
 * memory, its info table and, for stacks and applications, the stub's
 * pointer map; without a map (snapshots of format 1), from the stack and
 * argument bitmaps the source holds. */
#include "heap_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static uint64_t word_at(const unsigned char *mem, uint32_t size, size_t i)
{
    return (i + 1) * WORD <= size ? dbg_rdptr(mem + i * WORD) : 0;
}

/* The 32-bit half-word at byte offset `off`, 0 beyond the closure. */
static uint32_t half_at(const unsigned char *mem, uint32_t size, size_t off)
{
    uint32_t x = 0;
    if (off + 4 <= size)
        memcpy(&x, mem + off, 4);
    return x;
}

static void push_words(ptrvec *out, const unsigned char *mem, uint32_t size,
                       size_t first, size_t count)
{
    for (size_t i = first; i < first + count && (i + 1) * WORD <= size; i++)
        ptrvec_push(out, dbg_rdptr(mem + i * WORD));
}

size_t clo_rec_len(const unsigned char *p, size_t len)
{
    dbg_buf b = {(unsigned char *)p, len, len};
    size_t off = 0;
    clo_rec r;
    return clo_rec_next(&b, &off, &r) ? off : 0;
}

/* A bitmap reply (u32be n, n bytes) holds what it says. */
static int bitmap_ok(const dbg_buf *bm, size_t atleast)
{
    return bm->len >= 4 && bm->len >= 4 + (size_t)dbg_rd32(bm->p) &&
           dbg_rd32(bm->p) >= atleast;
}

/* Pointers among n payload words at word index `first`, per the argument
 * bitmap of the function `fun` (FUN_BITMAP): snapshots of format 1. */
static void push_fun_args(dbg_heap *h, decode_at at, uint64_t fun,
                          const unsigned char *mem, uint32_t size, size_t first,
                          uint32_t n, ptrvec *out)
{
    if (n == 0)
        return;
    if (n > 0xffff || (first + n) * WORD > size) {
        heap_note_unreadable(h, at.addr, at.parent,
                             "%u arguments do not fit the closure", n);
        return;
    }
    dbg_buf bm = {0};
    if (h->ops->fun_bitmap(h->src, UNTAG(fun), (uint16_t)n, &bm) == 0 &&
        bitmap_ok(&bm, n)) {
        for (uint32_t i = 0; i < n; i++)
            if (bm.p[4 + i])
                ptrvec_push(out, word_at(mem, size, first + i));
    } else {
        heap_note_unreadable(h, at.addr, at.parent,
                             "no argument bitmap for the function 0x%" PRIx64,
                             UNTAG(fun));
    }
    dbg_buf_free(&bm);
}

/* The pointers of a STACK object without a pointer map (snapshots of
 * format 1): frame by frame from sp, with the bitmaps the source holds. */
static void decode_stack(dbg_heap *h, decode_at at, const unsigned char *mem,
                         uint32_t size, ptrvec *out)
{
    uint64_t addr = at.addr;
    uint64_t sp = word_at(mem, size, 2);
    uint32_t stack_words = half_at(mem, size, WORD);
    uint64_t end = 3 * WORD + (uint64_t)stack_words * WORD;
    if (end > size || sp < addr + 3 * WORD || sp >= addr + end ||
        (sp - addr) % WORD) {
        heap_note_unreadable(h, addr, at.parent,
                             "stack pointer outside its stack");
        return;
    }
    uint64_t off = sp - addr;
    dbg_buf bm = {0};
    while (off + WORD <= end) {
        uint64_t finfo = dbg_rdptr(mem + off);
        dbg_info *fi = dbg_heap_info(h, finfo);
        if (!fi || !fi->type) {
            heap_note_unreadable(
                h, addr, at.parent,
                "stack frame at word %" PRIu64 ": no info table", off / WORD);
            break;
        }
        if (fi->srt)
            ptrvec_push(out, fi->srt);
        if (fi->type == GHC_STOP_FRAME)
            break;
        if (fi->type == GHC_UNDERFLOW_FRAME) {
            ptrvec_push(out, word_at(mem, size, off / WORD + 1));
            break;
        }
        size_t payload = 1;
        if (fi->type == GHC_RET_FUN) {
            ptrvec_push(out, word_at(mem, size, off / WORD + 2));
            payload = 3;
        } else if (!ghc_type_is_frame(fi->type)) {
            heap_note_unreadable(h, addr, at.parent,
                                 "stack frame at word %" PRIu64 ": a %s",
                                 off / WORD, ghc_closure_type_name(fi->type));
            break;
        }
        uint32_t rel = (uint32_t)(off - (sp - addr));
        if (h->ops->stack_bitmap(h->src, sp, rel, &bm) != 0 ||
            !bitmap_ok(&bm, 0)) {
            heap_note_unreadable(h, addr, at.parent,
                                 "stack frame at word %" PRIu64 ": no bitmap",
                                 off / WORD);
            break;
        }
        uint32_t n = dbg_rd32(bm.p);
        for (uint32_t i = 0; i < n; i++)
            if (bm.p[4 + i])
                ptrvec_push(out, word_at(mem, size, off / WORD + payload + i));
        off += (payload + n) * WORD;
    }
    dbg_buf_free(&bm);
}

/* The pointers a pointer map marks, and the SRTs of the frames it marks
 * (their info tables were fetched with the batch). */
static void decode_map(dbg_heap *h, decode_at at, const clo_rec *r, ptrvec *out)
{
    for (uint32_t i = 0; i < r->nmap; i++) {
        if (r->map[i] == DEBUG_STUB_WORD_PTR) {
            ptrvec_push(out, dbg_rdptr(r->mem + (size_t)i * WORD));
        } else if (r->map[i] == DEBUG_STUB_WORD_FRAME) {
            dbg_info *fi =
                dbg_heap_info(h, dbg_rdptr(r->mem + (size_t)i * WORD));
            if (!fi || !fi->type)
                heap_note_unreadable(h, at.addr, at.parent,
                                     "stack frame at word %u: no info table",
                                     i);
            else if (fi->srt)
                ptrvec_push(out, fi->srt);
        }
    }
}

void decode_closure(dbg_heap *h, decode_at at, dbg_info *in, const clo_rec *r,
                    ptrvec *out)
{
    const unsigned char *mem = r->mem;
    uint32_t size = r->size;
    uint32_t t = in->type;
    out->n = 0;
    if (in->srt)
        ptrvec_push(out, in->srt);
    if (r->nmap &&
        (t == GHC_STACK || t == GHC_AP_STACK || t == GHC_PAP || t == GHC_AP)) {
        decode_map(h, at, r, out);
    } else if (ghc_type_is_constr(t) || ghc_type_is_fun(t) || t == GHC_PRIM ||
               t == GHC_MUT_PRIM) {
        push_words(out, mem, size, 1, in->ptrs);
    } else if (t >= GHC_THUNK && t <= GHC_THUNK_STATIC) {
        push_words(out, mem, size, 2, in->ptrs);
    } else {
        switch (t) {
        case GHC_THUNK_SELECTOR:
            push_words(out, mem, size, 2, 1);
            break;
        case GHC_AP: {
            uint32_t nargs = half_at(mem, size, 2 * WORD + 4);
            uint64_t fun = word_at(mem, size, 3);
            ptrvec_push(out, fun);
            push_fun_args(h, at, fun, mem, size, 4, nargs, out);
            break;
        }
        case GHC_PAP: {
            uint32_t nargs = half_at(mem, size, WORD + 4);
            uint64_t fun = word_at(mem, size, 2);
            ptrvec_push(out, fun);
            push_fun_args(h, at, fun, mem, size, 3, nargs, out);
            break;
        }
        case GHC_AP_STACK:
            push_words(out, mem, size, 3, 1);
            heap_note_unreadable(
                h, at.addr, at.parent,
                "an AP_STACK without a pointer map (a snapshot "
                "of format 1): its stack chunk is not followed");
            break;
        case GHC_IND:
        case GHC_IND_STATIC:
        case GHC_BLACKHOLE:
        case GHC_MUT_VAR_CLEAN:
        case GHC_MUT_VAR_DIRTY:
            push_words(out, mem, size, 1, 1);
            break;
        case GHC_BCO:
        case GHC_MVAR_CLEAN:
        case GHC_MVAR_DIRTY:
            push_words(out, mem, size, 1, 3);
            break;
        case GHC_TVAR:
            push_words(out, mem, size, 1, 2);
            break;
        case GHC_BLOCKING_QUEUE:
            push_words(out, mem, size, 1, 4);
            break;
        case GHC_WEAK:
            push_words(out, mem, size, 1, 5);
            break;
        case GHC_TREC_CHUNK: {
            /* prev_chunk, next_entry_idx, then entries of four words
             * (tvar, expected_value, new_value, num_updates) */
            push_words(out, mem, size, 1, 1);
            uint64_t used = word_at(mem, size, 2);
            for (uint64_t e = 0; e < used && e < 16; e++)
                push_words(out, mem, size, 3 + 4 * (size_t)e, 3);
            break;
        }
        case GHC_TSO: {
            /* the fields the GC follows (scavengeTSO): _link, stackobj,
             * trec, blocked_exceptions, bq, and block_info when the
             * thread is blocked on a closure (or not blocked) */
            push_words(out, mem, size, 1, 1);
            push_words(out, mem, size, 3, 1);
            push_words(out, mem, size, 10, 3);
            if (size >= 6 * WORD) {
                uint16_t why;
                memcpy(&why, mem + 4 * WORD + 2, 2); /* host order */
                if (why == 0 || why == 1 || why == 2 || why == 12 ||
                    why == 14 || why == 15)
                    push_words(out, mem, size, 5, 1);
            }
            break;
        }
        case GHC_STACK:
            decode_stack(h, at, mem, size, out);
            break;
        default:
            if (t >= GHC_MUT_ARR_PTRS_CLEAN &&
                t <= GHC_MUT_ARR_PTRS_FROZEN_CLEAN)
                push_words(out, mem, size, 3, (size_t)word_at(mem, size, 1));
            else if (t >= GHC_SMALL_MUT_ARR_PTRS_CLEAN &&
                     t <= GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN)
                push_words(out, mem, size, 2, (size_t)word_at(mem, size, 1));
            break; /* ARR_WORDS, WHITEHOLE, COMPACT_NFDATA...: no pointers */
        }
    }
}
