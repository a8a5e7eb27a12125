/* What the explorer says of a node: its row (xt_describe), its details
 * pane (xt_details). */
#include "explore.h"

#include "groups.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD 8

/* ---- closures ----------------------------------------------------------- */

/* The name -hi gives an info table, else its constructor's, else its
 * closure type's. */
static void info_name(dbg_heap *h, dbg_info *in, char *buf, size_t len)
{
    if (!debug_info_name(h, in, buf, len))
        snprintf(buf, len, "%s", ghc_closure_type_name(in->type));
}

static const char *why_blocked(unsigned w)
{
    static const char *const why[] = {"running or runnable",
                                      "blocked on an MVar",
                                      "blocked on a blackhole",
                                      "blocked reading a file descriptor",
                                      "blocked writing a file descriptor",
                                      "in threadDelay",
                                      "blocked in STM",
                                      "blocked on a process",
                                      NULL,
                                      NULL,
                                      "in a foreign call",
                                      "in an interruptible foreign call",
                                      "blocked throwing an exception",
                                      "migrating",
                                      "blocked reading an MVar",
                                      "blocked on I/O completion"};
    return w < sizeof(why) / sizeof(*why) && why[w] ? why[w] : "blocked";
}

/* What a thread's row says: its id and why it waits (StgTSO's what_next
 * and why_blocked half-words and its id, where the heap's GHC has them). */
static void thread_text(const dbg_tso_layout *l, const dbg_closure *c,
                        char *buf, size_t len)
{
    uint16_t what_next = 0, why = 0;
    uint64_t id = 0;
    if (c->size >= (uint32_t)l->id_at + 8) {
        memcpy(&what_next, c->mem + l->what_next_at, 2);
        memcpy(&why, c->mem + l->why_blocked_at, 2);
        memcpy(&id, c->mem + l->id_at, 8);
    }
    snprintf(buf, len, "thread %" PRIu64 ", %s", id,
             what_next >= 3 ? "finished" : why_blocked(why));
}

/* A constructor's non-pointer words, as numbers; an ARR_WORDS' size and
 * the start of its bytes where they are text. */
static void data_text(const dbg_closure *c, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    if (c->info->type == GHC_ARR_WORDS && c->size >= 16) {
        uint64_t n;
        memcpy(&n, c->mem + 8, 8);
        o += (size_t)snprintf(buf, len, " %" PRIu64 " bytes", n);
        size_t k = 0;
        while (k < n && k < 24 && 16 + k < c->size && c->mem[16 + k] >= 0x20 &&
               c->mem[16 + k] < 0x7f)
            k++;
        if (k >= 4 && o < len)
            snprintf(buf + o, len - o, " \"%.*s%s\"", (int)k,
                     (const char *)c->mem + 16, k < n ? "..." : "");
        return;
    }
    if (!ghc_type_is_constr(c->info->type) || c->info->nptrs == 0)
        return;
    size_t first = 1 + c->info->ptrs;
    for (size_t w = first; w < first + c->info->nptrs && w < 5 + first &&
                           (w + 1) * WORD <= c->size && o < len;
         w++) {
        int64_t v;
        memcpy(&v, c->mem + w * WORD, WORD);
        o += (size_t)snprintf(buf + o, len - o, " %" PRId64, v);
    }
}

/* "TYPE name data" of a closure just read. */
static void closure_summary(xt_tree *t, const dbg_closure *c, char *buf,
                            size_t len)
{
    char name[256], more[300];
    info_name(t->h, c->info, name, sizeof(name));
    more[0] = '\0';
    if (c->info->type == GHC_TSO)
        thread_text(&t->h->layout->tso, c, more, sizeof(more));
    else if (!dbg_info_is_rts(t->h, c->info) || c->info->type == GHC_ARR_WORDS)
        data_text(c, more, sizeof(more));
    snprintf(buf, len, "%s %s%s%s", ghc_closure_type_name(c->info->type), name,
             c->info->type == GHC_TSO ? " " : "", more);
}

/* An evaluated thunk not yet short-cut by the GC (a BLACKHOLE or IND to a
 * value, not to a thread evaluating it): " -> " and its value, in buf. */
static void indirect_summary(xt_tree *t, uint64_t to, char *buf, size_t len)
{
    buf[0] = '\0';
    if (dbg_heap_read(t->h, to, &t->rd) != 0)
        return;
    uint32_t type = t->rd.c.info->type;
    if (type == GHC_TSO || type == GHC_BLOCKING_QUEUE)
        return;
    char s[600];
    closure_summary(t, &t->rd.c, s, sizeof(s));
    snprintf(buf, len, " -> 0x%" PRIx64 " %s", to, s);
}

/* "retains N B (P%)  " of the dominator tree's closures. */
static void retained_text(const xt_tree *t, uint64_t bytes, char *buf,
                          size_t len)
{
    double whole = t->g && t->g->bytes ? (double)t->g->bytes : 0;
    snprintf(buf, len, "%10" PRIu64 " B %5.1f%%  ", bytes,
             whole > 0 ? 100.0 * (double)bytes / whole : 0.0);
}

static int describe_closure(xt_tree *t, xt_node *x)
{
    int r = dbg_heap_read(t->h, x->addr, &t->rd);
    if (r < 0) {
        snprintf(t->err, sizeof(t->err), "%s", t->h->err);
        return -1;
    }
    char sum[600], ind[700] = "", buf[1500], retains[64] = "";
    if (x->retained)
        retained_text(t, x->retained, retains, sizeof(retains));
    if (r > 0) {
        x->read = 2;
        snprintf(buf, sizeof(buf), "0x%" PRIx64 " unreadable: %s", x->addr,
                 t->rd.why);
    } else {
        const dbg_closure *c = &t->rd.c;
        x->read = 1;
        x->info = c->info;
        x->size = c->size;
        x->type = c->info->type;
        closure_summary(t, c, sum, sizeof(sum));
        if ((x->type == GHC_BLACKHOLE || x->type == GHC_IND) && c->nptrs)
            indirect_summary(t, c->ptrs[0], ind, sizeof(ind));
        snprintf(buf, sizeof(buf), "%s0x%" PRIx64 " %s  %u B%s", retains,
                 x->addr, sum, x->size, ind);
    }
    free(x->text);
    x->text = strdup(buf);
    return x->text ? 0 : -1;
}

static int describe_frame(xt_tree *t, xt_node *x)
{
    dbg_info *in = dbg_heap_info(t->h, x->addr);
    char name[256], buf[1024];
    if (!in || !in->type) {
        x->read = 2;
        snprintf(buf, sizeof(buf), "info 0x%" PRIx64 " (not a frame's)",
                 x->addr);
    } else {
        x->read = 1;
        x->info = in;
        x->type = in->type;
        x->size = (uint32_t)(x->frame_end - x->word) * WORD;
        info_name(t->h, in, name, sizeof(name));
        snprintf(buf, sizeof(buf), "%s %s  %u B",
                 ghc_closure_type_name(in->type), name, x->size);
    }
    free(x->text);
    x->text = strdup(buf);
    return x->text ? 0 : -1;
}

int xt_describe(xt_tree *t, uint32_t i)
{
    xt_node *x = &t->v[i];
    if (x->read ||
        (x->kind != XT_CLOSURE && x->kind != XT_FRAME && x->kind != XT_DOM))
        return 0;
    return x->kind == XT_FRAME ? describe_frame(t, x) : describe_closure(t, x);
}

/* ---- the details pane ---------------------------------------------------- */

/* One line of the pane, cut at 255 bytes. */
static void put_line(char *line, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put_line(char *line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start above
    vsnprintf(line, 256, fmt, ap);
    va_end(ap);
}

size_t xt_details(xt_tree *t, uint32_t i, char (*lines)[256], size_t max)
{
    xt_node *x = &t->v[i];
    size_t n = 0;
    if (max == 0)
        return 0;
    if (xt_describe(t, i) != 0 ||
        (x->kind != XT_CLOSURE && x->kind != XT_FRAME && x->kind != XT_DOM) ||
        x->read != 1 || !x->info) {
        put_line(lines[n++], "%s%s%s", x->label ? x->label : "",
                 x->text ? ": " : "", x->text ? x->text : "");
        return n;
    }
    dbg_info *in = x->info;
    char name[256];
    info_name(t->h, in, name, sizeof(name));
    char ret[128] = "";
    if (x->retained)
        snprintf(ret, sizeof(ret),
                 ", retains %" PRIu64 " (what the GC would "
                 "free without it)",
                 x->retained);
    if (x->kind != XT_FRAME)
        put_line(lines[n++], "closure 0x%" PRIx64 "  %s  %u bytes%s", x->addr,
                 ghc_closure_type_name(x->type), x->size, ret);
    else
        put_line(lines[n++], "stack frame at word %u  %s  %u bytes", x->word,
                 ghc_closure_type_name(x->type), x->size);
    if (n < max)
        put_line(lines[n++], "info table 0x%" PRIx64 "  %.200s", in->ptr, name);
    const char *con = dbg_heap_con_descr(t->h, in);
    if (con && n < max)
        put_line(lines[n++], "constructor %s", con);
    char *const *src = dbg_heap_source(t->h, in);
    if (src && !src[4][0] && !src[5][0])
        src = NULL;
    if (src && n < max)
        put_line(lines[n++], "defined in %.80s%s%.120s%s%.40s", src[4],
                 src[5][0] ? " at " : "", src[5], src[2][0] ? ", type " : "",
                 src[2]);
    else if (n < max)
        put_line(lines[n++], "no source information (%s)",
                 dbg_info_is_rts(t->h, in) ? "the RTS's own info table"
                                           : "no provenance recorded for it");
    if (n < max && x->kind != XT_FRAME)
        put_line(lines[n++], "layout: %u pointers, %u non-pointers%s", in->ptrs,
                 in->nptrs, in->srt ? ", has an SRT" : "");
    return n;
}
