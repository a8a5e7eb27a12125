/* Sampled call stacks: the model of rtscope's time and allocation samples
 * (EL_TIME_SAMPLE, EL_ALLOC_SAMPLE: user binary messages, see
 * el_sample_kind_of; issue #44, docs/sampling.md) behind rtscope pprof,
 * rtscope stats and the flame graph of rtscope html and serve.
 *
 * While events stream past, identical stacks (of one kind, frame for frame)
 * add up: weight, samples, late and truncated samples, and for allocation
 * the estimated objects. samples_finish() then names the frames by the IPE
 * entries the stream gave, drops the RTS's own frames and adds up the
 * stacks that became identical. Memory grows with the distinct stacks, not
 * with the samples.
 *
 * Frames are info-table addresses, EL_IPE's `info` field: a frame is named
 * as -hi names the table (ipe.h), or by its address when no IPE entry came
 * for it. See Note [Sampled stacks] in samples.c. */
#ifndef RTSCOPE_SAMPLES_H
#define RTSCOPE_SAMPLES_H

#include "rtscope/base/hmap.h"
#include "rtscope/base/strtab.h"
#include "rtscope/eventlog.h"
#include "rtscope/model/ipe.h"

#include <stddef.h>
#include <stdint.h>

typedef enum samples_kind {
    SAMPLES_TIME = 0,  /* EL_TIME_SAMPLE: weight in nanoseconds */
    SAMPLES_ALLOC = 1, /* EL_ALLOC_SAMPLE: weight in bytes */
    SAMPLES_NKINDS
} samples_kind;

/* What a set of samples adds up to. */
typedef struct samples_sum {
    uint64_t count;     /* samples */
    uint64_t weight;    /* nanoseconds or bytes */
    uint64_t late;      /* samples flagged EL_SAMPLE_LATE */
    uint64_t truncated; /* samples flagged EL_SAMPLE_TRUNCATED */
    /* allocation: the objects the samples stand for, estimated as
     * weight / size per sample of known size (pprof's alloc_objects) */
    double objects;
    uint64_t unsized; /* allocation samples of size 0 (not in objects) */
} samples_sum;

/* One distinct stack. */
typedef struct samples_stack {
    samples_kind kind;
    uint32_t depth;
    size_t at; /* its frames, innermost first: samples_frames() */
    samples_sum sum;
} samples_stack;

/* One site: the stacks whose innermost frame is `info`. */
typedef struct samples_site {
    uint64_t info;
    samples_sum sum;
} samples_site;

typedef struct samples {
    ipe_table *ipe; /* the stream's IPE entries (owned) */
    /* the stacks: as the events gave them until samples_finish, then with
     * the RTS's frames dropped; frames in one arena of addresses */
    samples_stack *stacks;
    size_t nstacks, stacks_cap;
    uint64_t *arena;
    size_t narena, arena_cap;
    hmap index; /* stack hash -> stack number */
    samples_sum total[SAMPLES_NKINDS];
    uint64_t rts_frames; /* frames dropped by samples_finish */
    uint64_t first_weight[SAMPLES_NKINDS]; /* the first sample's weight */
    uint64_t last_ts;                      /* the latest sample's time, ns */
    int nomem;
    int finished;
} samples;

samples *samples_new(void);
void samples_free(samples *s);

/* Mark in wanted[65536] the event types samples_take() reads (EL_IPE and
 * EL_USER_BINARY_MSG, which carries the samples). */
void samples_wanted(uint8_t *wanted);
/* Take a decoded event: EL_IPE, or a user binary message that is a sample
 * (el_sample_kind_of); others, other binary messages among them, are
 * ignored. Returns 0, or -1 when out of memory. */
int samples_take(samples *s, const el_event *ev);
/* el_sink_fn: samples_take. Nonzero when out of memory. */
int samples_sink(void *ctx, const el_event *ev, const el_typetab *types);

/* Drop the RTS's frames (samples_frame_is_rts) from every stack, keeping
 * the innermost one of a stack that has nothing else, add up the stacks
 * that became identical, and order them by kind (allocation first), then
 * weight (heaviest first). Once; no samples_take after it. Returns 0 or -1
 * (memory). */
int samples_finish(samples *s);

/* 1 if the stream had samples of kind k. */
static inline int samples_any(const samples *s, samples_kind k)
{
    return s->total[k].count != 0;
}

/* The frames of a stack of s, innermost first (st->depth of them). */
static inline const uint64_t *samples_frames(const samples *s,
                                             const samples_stack *st)
{
    return s->arena + st->at;
}

/* The IPE entry of a frame, or NULL. */
const ipe_entry *samples_ipe(const samples *s, uint64_t info);
/* Is this table the RTS's own: its table name or label starts with
 * "stg_", or its type field names package rts ("rts:..." or
 * "rts-1.0.2:...")? NULL (no provenance) is not. */
int samples_frame_is_rts(const ipe_entry *e);
/* A frame's name for a report: the table's -hi band name (e->name), or
 * its address ("0x4c5e10") when the stream never described it; address 0
 * (the site of empty stacks) is "(no stack)". */
void samples_frame_name(const samples *s, uint64_t info, char *buf,
                        size_t size);

/* A frame's function, as pprof --stacks names it (Note [pprof functions
 * of a sampled stack] in out/pprof_stacks.c): its binding,
 * package:Module.binding (ipe_binding_name), else its -hi band name, else
 * its address; address 0 is "(no stack)". */
void samples_function_name(const samples *s, uint64_t info, char *buf,
                           size_t size);

/* The frames of a stack as samples_finish leaves them: the RTS's frames
 * dropped, the innermost one kept when nothing else is. Into out (room
 * for st->depth), innermost first; returns how many. The same frames
 * before samples_finish (rtscope serve's model, never finished) as after
 * it (where it changes nothing). */
uint32_t samples_kept_frames(const samples *s, const samples_stack *st,
                             uint64_t *out);

/* The sites of kind k: the stacks added up by their innermost frame (of
 * samples_kept_frames: before samples_finish too), heaviest first, in
 * *out (malloc'd, the caller frees it; NULL when there are none). Returns
 * how many, or -1 (memory). */
long samples_sites(const samples *s, samples_kind k, samples_site **out);

/* ---- the call tree (rtscope html's flame graph) -------------------------
 *
 * The stacks of one kind merged from the root (the outermost frame) down,
 * frames as samples_kept_frames leaves them, each named by its function
 * (samples_function_name): a node is a path of function names, its weight
 * and samples those of every stack through it. Node 0 is the root (every
 * stack; name -1); every other node's parent comes before it. */
typedef struct samples_node {
    uint64_t weight, count;
    int64_t name;    /* in the tree's names, -1 for the root */
    uint32_t parent; /* UINT32_MAX for the root */
    uint32_t depth;  /* the root's is 0 */
} samples_node;

typedef struct samples_tree {
    samples_node *nodes;
    size_t n, cap;
    strtab names; /* function names (owned copies) */
    hmap index;   /* (parent, name) -> node */
} samples_tree;

/* Build the tree of kind k into t (zeroed first). Returns 0, or -1 when
 * out of memory (t is then freed). Before or after samples_finish. */
int samples_tree_build(const samples *s, samples_kind k, samples_tree *t);
void samples_tree_free(samples_tree *t);

#endif
