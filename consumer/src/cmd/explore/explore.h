/* rtscope explore: an interactive heap browser (docs/explore.md). The
 * tree of what is being explored (xtree.c: roots grouped, closures
 * expanded into their fields, stacks into their frames) is kept apart
 * from the screen (xscreen.c, ncurses) and from where the heap comes from
 * (explore.c: a live program through its debug stub, paused or forked, or
 * a snapshot file; the picker). */
#ifndef RTSCOPE_CMD_EXPLORE_H
#define RTSCOPE_CMD_EXPLORE_H

#include "rtscope/debug/debug_graph.h"
#include "rtscope/debug/debug_heap.h"
#include "rtscope/debug/dominance.h"

#include <stddef.h>
#include <stdint.h>

/* Children shown at once under one node; the rest behind a "more" row. */
#define XT_PAGE 200

enum xt_kind {
    XT_GROUP,   /* a heading: saved objects, threads, ... */
    XT_CLOSURE, /* a closure (a root, or a pointer field of its parent) */
    XT_FRAME,   /* a stack frame of its parent STACK */
    XT_MORE,    /* "N more": Enter shows the next page */
    XT_NOTE,    /* a line of text (nothing to expand) */
    XT_ROW,     /* an analysis' row: expands to its sample closures */
    XT_DOM,     /* a closure of the dominator tree: expands to what it
                   dominates, largest first */
};

typedef struct xt_node {
    uint64_t addr;   /* closure; frame: its info pointer */
    uint32_t parent; /* node index, XT_NONE at the top */
    uint32_t first;  /* first child, XT_NONE if none (yet) */
    uint32_t next;   /* next sibling, XT_NONE if last */
    uint32_t depth;
    uint32_t word;      /* frame: word index in its stack */
    uint32_t frame_end; /* frame: the word after it */
    uint32_t from;      /* XT_MORE: the index of the next child to show */
    uint32_t soff;      /* XT_ROW: its samples, t->samp[soff .. + nsamp) */
    uint32_t nsamp;
    uint32_t id;       /* XT_DOM: the closure's number in t->g */
    uint64_t retained; /* bytes it retains, 0 when not known */
    uint8_t kind;
    uint8_t open;   /* children shown */
    uint8_t loaded; /* children made */
    uint8_t read;   /* closure or frame: 0 not yet, 1 read, 2 unreadable */
    uint32_t size;  /* closure: bytes, once read */
    uint32_t type;  /* closure or frame: closure type, once read */
    char *label;    /* field name, heading or note (malloc'd) */
    char *text;     /* what the row says after the label (malloc'd) */
    dbg_info *info; /* closure or frame: its info table, once read */
} xt_node;

#define XT_NONE UINT32_MAX

/* A view: what the tree shows at its top (the roots, a search's results,
 * an analysis), and where the user was in it. Back and forward move
 * between views; a new view drops the ones ahead. */
typedef struct xt_view {
    char title[160];
    uint32_t *top; /* the top-level nodes */
    size_t ntop, topcap;
    size_t sel, scroll;
} xt_view;

/* The tree over a heap (the program paused, or a snapshot). */
typedef struct xt_tree {
    dbg_heap *h;
    xt_node *v;
    size_t n, cap;
    xt_view *views;
    size_t nviews, viewcap, cur;
    uint64_t *samp; /* the analysis rows' sample closures */
    size_t nsamp, sampcap;
    dbg_graph *g;     /* the dominator tree, once made (XT_DOM nodes) */
    dbg_domtree *dom; /* its children */
    uint32_t *vis;    /* the rows shown, in order */
    size_t nvis, viscap;
    dbg_read rd;
    char err[512];
} xt_tree;

/* The tree of the heap's roots: saved objects (the last nsaved of roots)
 * first, then the GC roots grouped by kind. 0, or -1 with t->err set. */
int xt_build(xt_tree *t, dbg_heap *h, const uint64_t *roots, size_t nroots,
             size_t nsaved);
void xt_free(xt_tree *t);
/* A new node (its label, malloc'd or NULL, taken over), or XT_NONE (t->err)
 * when out of memory. */
uint32_t xt_node_new(xt_tree *t, enum xt_kind kind, uint32_t parent,
                     uint64_t addr, char *label);

/* A new view, current, after the current one (those ahead dropped).
 * 0, or -1 (t->err). */
int xt_view_push(xt_tree *t, const char *title);
/* Make view k current (its nodes listed). */
void xt_view_go(xt_tree *t, size_t k);
/* Node i at the end of the current view's top. 0, or -1 (t->err). */
int xt_top_add(xt_tree *t, uint32_t i);
/* A row of an analysis at the current view's top, or (parent not
 * XT_NONE) as parent's last child (label: what it says, malloc'd, taken
 * over), with its samples. The node, or XT_NONE (t->err). */
uint32_t xt_row_add(xt_tree *t, uint32_t parent, char *label,
                    const uint64_t *samples, size_t nsamples);

/* A line of text at the current view's top, or as parent's last child.
 * The node, or XT_NONE (t->err). */
uint32_t xt_note_add(xt_tree *t, uint32_t parent, const char *text);

/* Read node i's closure (once) and make its row text. 0, or -1 with
 * t->err set when the heap can no longer be read. */
int xt_describe(xt_tree *t, uint32_t i);
/* Show node i's children (making them the first time), hide them, or
 * (XT_MORE) show the next page of its parent's. 0 or -1 (t->err). */
int xt_open(xt_tree *t, uint32_t i);
void xt_close(xt_tree *t, uint32_t i);
/* Rebuild t->vis from what is open. -1 when out of memory. */
int xt_relist(xt_tree *t);

/* A long walk's progress and its cancelling (Esc): poll is called after
 * each batch of closures read; nonzero stops the walk. */
typedef struct xt_progress {
    int (*poll)(void *ui, const char *what, size_t visited, size_t queued);
    void *ui;
    const char *what; /* "searching", "census", ... */
} xt_progress;

/* dbg_heap_walk with progress: 0, 1 when cancelled, -1 (t->err). */
int xt_walk(xt_tree *t, const uint64_t *roots, size_t nroots, dbg_visit_fn fn,
            void *ctx, const xt_progress *p);

/* Walk the heap from roots to the closure at target and show its path to
 * a root (the closures that first reach it, breadth first: a shortest
 * one) as a new view. 0; 1 when it is not reachable or the walk was
 * cancelled, -1 (t->err). */
int xt_retainers(xt_tree *t, const uint64_t *roots, size_t nroots,
                 uint64_t target, const xt_progress *p);

/* Search the heap (Note [Search queries] in xsearch.c) and show what
 * matches as a new view. 0; 1 when cancelled, -1 with t->err set (a bad
 * query says what is wrong). */
int xt_search(xt_tree *t, const uint64_t *roots, size_t nroots,
              const char *query, const xt_progress *p);

/* A census of the heap (by: census_table.h's enum census_by; thunks by
 * source with BY_THUNK_SOURCE) as a new view, a row a key, largest
 * first, each expandable to its first closures. 0; 1 cancelled, -1
 * (t->err). */
int xt_census(xt_tree *t, const uint64_t *roots, size_t nroots, int by,
              const xt_progress *p);
/* Duplicated ARR_WORDS (by payload, with a histogram of their sizes)
 * or duplicated strings as a new view, most bytes wasted first, each row
 * expandable to its first closures. 0; 1 cancelled, -1 (t->err). */
int xt_dups(xt_tree *t, const uint64_t *roots, size_t nroots, int strings,
            const xt_progress *p);
/* A new graph of the heap (debug_graph.h: a walk of it) into *out, which
 * the caller frees. 0; 1 cancelled, -1 (t->err). */
int xt_graph_walk(xt_tree *t, const uint64_t *roots, size_t nroots,
                  const xt_progress *p, dbg_graph **out);
/* The two-level census (rtscope/debug/census2.h) as a new view: a row an
 * info table, expandable to a row for each kind of closure of it by what
 * it points to, each expandable to its first closures. 0; 1 cancelled,
 * -1 (t->err). */
int xt_census2(xt_tree *t, const uint64_t *roots, size_t nroots,
               const xt_progress *p);
/* The dominator tree (made once, then kept), or its leak suspects, as a
 * new view: closures with their retained sizes, each expandable to what
 * it dominates. 0; 1 cancelled, -1 (t->err). */
int xt_dominators(xt_tree *t, const uint64_t *roots, size_t nroots,
                  int suspects, const xt_progress *p);

/* The ARR_WORDS closure of node i (a closure, or an analysis' row: its
 * first one) into *addr: 0; 1 when it is none (t->err says why), -1
 * when the heap cannot be read (t->err). */
int xt_payload_of(xt_tree *t, uint32_t i, uint64_t *addr);
/* Write the payload of the ARR_WORDS at addr to path (replaced): 0 with
 * *bytes written, or -1 (t->err; nothing left at path). */
int xt_payload_write(xt_tree *t, uint64_t addr, const char *path,
                     uint64_t *bytes);

/* A snapshot of the heap of session s (live: paused or forked) written
 * to ./<program>.<pid>.<n>.explore.rsnap (its name into path), as
 * `rtscope debug snapshot` takes one. 0 with t->err saying what was
 * written; 1 cancelled, -1 (t->err). */
struct debug_session;
int xt_snapshot(xt_tree *t, const struct debug_session *s, const xt_progress *p,
                char *path, size_t len);

/* Seconds on a monotonic clock. */
double xt_now(void);

/* Lines describing node i for the details pane, into lines[0..max):
 * how many. Each line at most len bytes. */
size_t xt_details(xt_tree *t, uint32_t i, char (*lines)[256], size_t max);

#endif
