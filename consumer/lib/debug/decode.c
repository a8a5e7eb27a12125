/* Closure decoding for GHC's x86_64 layouts, non-profiled
 * (rts/storage/Closures.h: a one-word header, thunks one extra word; what
 * differs between the GHCs is the heap's dbg_layout): the pointers of a closure
 * as the GC would follow them, from its memory, its info table and, for stacks
 * and applications, the stub's pointer map; without a map (snapshots of format
 * 1), from the stack and argument bitmaps the source holds. */
#include "heap_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where decoding puts the pointers, and (when wanted) what each is. */
typedef struct dsink {
    ptrvec *out;
    fieldvec *fields; /* NULL: not wanted */
} dsink;

/* Push pointer x (untagged; 0 is skipped) that is field f. */
static void emit(dsink *d, uint64_t x, uint64_t f)
{
    size_t before = d->out->n;
    ptrvec_push(d->out, x);
    if (!d->fields || d->out->n == before)
        return;
    fieldvec *fv = d->fields;
    if (rt_grow((void **)&fv->v, &fv->cap, fv->n, sizeof(*fv->v), 64) != 0) {
        d->out->n = before; /* out of memory: the two stay in step */
        return;
    }
    fv->v[fv->n++] = f;
}

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

/* Push count words from word index first, the first of them field f0 and
 * the next ones f0 with its a (or, for a named field, its name) counting
 * up. */
static void push_words(dsink *d, const unsigned char *mem, uint32_t size,
                       size_t first, size_t count, uint64_t f0)
{
    for (size_t i = first; i < first + count && (i + 1) * WORD <= size; i++)
        emit(d, dbg_rdptr(mem + i * WORD), f0 + ((uint64_t)(i - first) << 28));
}

/* A named field (one word). */
static void push_named(dsink *d, const unsigned char *mem, uint32_t size,
                       size_t word, enum dbg_named_field nf)
{
    push_words(d, mem, size, word, 1, DBG_FIELD(DBG_FIELD_NAMED, nf, 0));
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
                          uint32_t n, dsink *d)
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
                emit(d, word_at(mem, size, first + i),
                     DBG_FIELD(DBG_FIELD_ARG, i, 0));
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
                         uint32_t size, dsink *d)
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
    for (uint32_t frame = 0; off + WORD <= end; frame++) {
        uint64_t finfo = dbg_rdptr(mem + off);
        dbg_info *fi = dbg_heap_info(h, finfo);
        if (!fi || !fi->type) {
            heap_note_unreadable(
                h, addr, at.parent,
                "stack frame at word %" PRIu64 ": no info table", off / WORD);
            break;
        }
        if (fi->srt)
            emit(d, fi->srt, DBG_FIELD(DBG_FIELD_FRAME_SRT, frame, 0));
        if (fi->type == GHC_STOP_FRAME)
            break;
        uint64_t slot = DBG_FIELD(DBG_FIELD_FRAME_SLOT, frame, 0);
        if (fi->type == GHC_UNDERFLOW_FRAME) {
            emit(d, word_at(mem, size, off / WORD + 1), slot + 1);
            break;
        }
        size_t payload = 1;
        if (fi->type == GHC_RET_FUN) {
            emit(d, word_at(mem, size, off / WORD + 2), slot + 2);
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
                emit(d, word_at(mem, size, off / WORD + payload + i),
                     slot + payload + i);
        off += (payload + n) * WORD;
    }
    dbg_buf_free(&bm);
}

/* What the pointer at word i of a closure with a pointer map is, before
 * its first frame: a PAP's or AP's function and arguments, an AP_STACK's
 * function. */
static uint64_t map_field_before_frames(uint32_t type, uint32_t i)
{
    uint32_t fun = type == GHC_PAP ? 2 : 3; /* AP, AP_STACK: 3 */
    if (i == fun)
        return DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_FUN, 0);
    return DBG_FIELD(DBG_FIELD_ARG, i > fun ? i - fun - 1 : i, 0);
}

/* The pointers a pointer map marks, and the SRTs of the frames it marks
 * (their info tables were fetched with the batch). */
static void decode_map(dbg_heap *h, decode_at at, uint32_t type,
                       const clo_rec *r, dsink *d)
{
    uint32_t frame = 0, frame_at = 0;
    int in_frames = 0;
    for (uint32_t i = 0; i < r->nmap; i++) {
        if (r->map[i] == DEBUG_STUB_WORD_PTR) {
            uint64_t f = in_frames ? DBG_FIELD(DBG_FIELD_FRAME_SLOT, frame - 1,
                                               i - frame_at)
                                   : map_field_before_frames(type, i);
            emit(d, dbg_rdptr(r->mem + (size_t)i * WORD), f);
        } else if (r->map[i] == DEBUG_STUB_WORD_FRAME) {
            in_frames = 1;
            frame_at = i;
            dbg_info *fi =
                dbg_heap_info(h, dbg_rdptr(r->mem + (size_t)i * WORD));
            if (!fi || !fi->type)
                heap_note_unreadable(h, at.addr, at.parent,
                                     "stack frame at word %u: no info table",
                                     i);
            else if (fi->srt)
                emit(d, fi->srt, DBG_FIELD(DBG_FIELD_FRAME_SRT, frame, 0));
            frame++;
        }
    }
}

/* The pointers of the RTS's own objects (and of applications and stacks
 * without a pointer map). */
static void decode_rts_object(dbg_heap *h, decode_at at, uint32_t t,
                              const unsigned char *mem, uint32_t size, dsink *d)
{
    switch (t) {
    case GHC_THUNK_SELECTOR:
        push_named(d, mem, size, 2, DBG_NF_SELECTEE);
        break;
    case GHC_AP:
    case GHC_PAP: {
        /* AP: a thunk header, then arity/n_args, fun, args; PAP: no
         * thunk word */
        size_t fw = t == GHC_AP ? 3 : 2;
        uint32_t nargs = half_at(mem, size, (fw - 1) * WORD + 4);
        uint64_t fun = word_at(mem, size, fw);
        emit(d, fun, DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_FUN, 0));
        push_fun_args(h, at, fun, mem, size, fw + 1, nargs, d);
        break;
    }
    case GHC_AP_STACK:
        push_named(d, mem, size, 3, DBG_NF_FUN);
        heap_note_unreadable(h, at.addr, at.parent,
                             "an AP_STACK without a pointer map (a snapshot "
                             "of format 1): its stack chunk is not followed");
        break;
    case GHC_IND:
    case GHC_IND_STATIC:
    case GHC_BLACKHOLE:
        push_named(d, mem, size, 1, DBG_NF_INDIRECTEE);
        break;
    case GHC_MUT_VAR_CLEAN:
    case GHC_MUT_VAR_DIRTY:
        push_named(d, mem, size, 1, DBG_NF_VAR);
        break;
    case GHC_BCO:
        push_words(d, mem, size, 1, 3,
                   DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_INSTRS, 0));
        break;
    case GHC_MVAR_CLEAN:
    case GHC_MVAR_DIRTY:
        push_words(d, mem, size, 1, 3,
                   DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_HEAD, 0));
        break;
    case GHC_TVAR:
        push_words(d, mem, size, 1, 2,
                   DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_CURRENT_VALUE, 0));
        break;
    case GHC_BLOCKING_QUEUE:
        push_words(d, mem, size, 1, 4,
                   DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_LINK, 0));
        break;
    case GHC_WEAK:
        push_named(d, mem, size, 1, DBG_NF_CFINALIZERS);
        push_named(d, mem, size, 2, DBG_NF_KEY);
        push_named(d, mem, size, 3, DBG_NF_VALUE);
        push_named(d, mem, size, 4, DBG_NF_FINALIZER);
        push_named(d, mem, size, 5, DBG_NF_LINK);
        break;
    case GHC_TREC_CHUNK: {
        /* prev_chunk, next_entry_idx, then entries of four words
         * (tvar, expected_value, new_value, num_updates) */
        push_named(d, mem, size, 1, DBG_NF_PREV_CHUNK);
        uint64_t used = word_at(mem, size, 2);
        for (uint64_t e = 0; e < used && e < 16; e++)
            push_words(d, mem, size, 3 + 4 * (size_t)e, 3,
                       DBG_FIELD(DBG_FIELD_NAMED, DBG_NF_TVAR, e));
        break;
    }
    case GHC_TSO: {
        /* the fields the GC follows (scavengeTSO): _link, stackobj,
         * trec, the label (9.6), blocked_exceptions, bq, and block_info
         * when the thread is blocked on a closure (or not blocked) */
        const dbg_tso_layout *l = &h->layout->tso;
        push_named(d, mem, size, l->link, DBG_NF_LINK);
        push_named(d, mem, size, l->stackobj, DBG_NF_STACKOBJ);
        push_named(d, mem, size, l->trec, DBG_NF_TREC);
        if (l->label)
            push_named(d, mem, size, l->label, DBG_NF_LABEL);
        push_named(d, mem, size, l->blocked_exceptions,
                   DBG_NF_BLOCKED_EXCEPTIONS);
        push_named(d, mem, size, l->bq, DBG_NF_BQ);
        if (size >= (size_t)l->why_blocked_at + 2) {
            uint16_t why;
            memcpy(&why, mem + l->why_blocked_at, 2); /* host order */
            if (why < 32 && (l->why_closure & (1u << why)))
                push_named(d, mem, size, l->block_info, DBG_NF_BLOCK_INFO);
        }
        break;
    }
    case GHC_STACK:
        decode_stack(h, at, mem, size, d);
        break;
    default:
        if (t >= GHC_MUT_ARR_PTRS_CLEAN && t <= GHC_MUT_ARR_PTRS_FROZEN_CLEAN)
            push_words(d, mem, size, 3, (size_t)word_at(mem, size, 1),
                       DBG_FIELD(DBG_FIELD_ELEMENT, 0, 0));
        else if (t >= GHC_SMALL_MUT_ARR_PTRS_CLEAN &&
                 t <= GHC_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN)
            push_words(d, mem, size, 2, (size_t)word_at(mem, size, 1),
                       DBG_FIELD(DBG_FIELD_ELEMENT, 0, 0));
        break; /* ARR_WORDS, WHITEHOLE, COMPACT_NFDATA...: no pointers */
    }
}

void decode_closure_fields(dbg_heap *h, decode_at at, dbg_info *in,
                           const clo_rec *r, ptrvec *out, fieldvec *fields)
{
    dsink d = {out, fields};
    uint32_t t = in->type;
    out->n = 0;
    if (fields)
        fields->n = 0;
    if (in->srt)
        emit(&d, in->srt, DBG_FIELD(DBG_FIELD_SRT, 0, 0));
    if (r->nmap && (t == GHC_STACK || t == GHC_AP_STACK || t == GHC_PAP ||
                    t == GHC_AP || t == GHC_CONTINUATION))
        decode_map(h, at, t, r, &d);
    else if (ghc_type_is_constr(t) || ghc_type_is_fun(t) || t == GHC_PRIM ||
             t == GHC_MUT_PRIM)
        push_words(&d, r->mem, r->size, 1, in->ptrs,
                   DBG_FIELD(DBG_FIELD_PAYLOAD, 0, 0));
    else if (t >= GHC_THUNK && t <= GHC_THUNK_STATIC)
        push_words(&d, r->mem, r->size, 2, in->ptrs,
                   DBG_FIELD(DBG_FIELD_PAYLOAD, 0, 0));
    else
        decode_rts_object(h, at, t, r->mem, r->size, &d);
}

void decode_closure(dbg_heap *h, decode_at at, dbg_info *in, const clo_rec *r,
                    ptrvec *out)
{
    decode_closure_fields(h, at, in, r, out, NULL);
}

/* ---- field names -------------------------------------------------------- */

const char *const dbg_field_names[DBG_NF_N] = {
    [DBG_NF_INDIRECTEE] = "indirectee",
    [DBG_NF_SELECTEE] = "selectee",
    [DBG_NF_FUN] = "fun",
    [DBG_NF_VAR] = "var",
    [DBG_NF_HEAD] = "head",
    [DBG_NF_TAIL] = "tail",
    [DBG_NF_VALUE] = "value",
    [DBG_NF_CURRENT_VALUE] = "current_value",
    [DBG_NF_WATCH_QUEUE] = "first_watch_queue_entry",
    [DBG_NF_LINK] = "link",
    [DBG_NF_BH] = "bh",
    [DBG_NF_OWNER] = "owner",
    [DBG_NF_QUEUE] = "queue",
    [DBG_NF_CFINALIZERS] = "cfinalizers",
    [DBG_NF_KEY] = "key",
    [DBG_NF_FINALIZER] = "finalizer",
    [DBG_NF_INSTRS] = "instrs",
    [DBG_NF_LITERALS] = "literals",
    [DBG_NF_PTRS] = "ptrs",
    [DBG_NF_PREV_CHUNK] = "prev_chunk",
    [DBG_NF_TVAR] = "tvar",
    [DBG_NF_EXPECTED] = "expected_value",
    [DBG_NF_NEW_VALUE] = "new_value",
    [DBG_NF_STACKOBJ] = "stackobj",
    [DBG_NF_TREC] = "trec",
    [DBG_NF_BLOCKED_EXCEPTIONS] = "blocked_exceptions",
    [DBG_NF_BQ] = "bq",
    [DBG_NF_BLOCK_INFO] = "block_info",
    [DBG_NF_LABEL] = "label",
};

int dbg_field_describe(uint64_t field, char *buf, size_t len, uint32_t *index)
{
    uint32_t a = DBG_FIELD_A(field), b = DBG_FIELD_B(field);
    switch (DBG_FIELD_KIND(field)) {
    case DBG_FIELD_PAYLOAD:
    case DBG_FIELD_ELEMENT:
        *index = a;
        return 1;
    case DBG_FIELD_SRT:
        snprintf(buf, len, "srt");
        break;
    case DBG_FIELD_NAMED:
        if (a >= DBG_NF_N)
            snprintf(buf, len, "field");
        else if (a >= DBG_NF_TVAR && a <= DBG_NF_NEW_VALUE)
            snprintf(buf, len, "entry %u %s", b, dbg_field_names[a]);
        else
            snprintf(buf, len, "%s", dbg_field_names[a]);
        break;
    case DBG_FIELD_ARG:
        snprintf(buf, len, "arg %u", a);
        break;
    case DBG_FIELD_FRAME_SRT:
        snprintf(buf, len, "frame %u srt", a);
        break;
    case DBG_FIELD_FRAME_SLOT:
        snprintf(buf, len, "frame %u slot %u", a, b);
        break;
    default:
        snprintf(buf, len, "field");
        break;
    }
    return 0;
}
