/* debug_layout: what differs between the heaps of the GHCs rtscope reads
 * (x86_64, non-profiled), in one table a GHC, picked by the GHC version a
 * stub's VERSION answer or a snapshot's header gives (902 for 9.0.2, 906
 * for 9.6.6). Everything else of a closure the decoder reads is the same
 * in both, or comes from the stub (sizes, pointer maps, info tables).
 * See Note [One table a GHC] in lib/debug/layout.c. */
#ifndef RTSCOPE_DEBUG_LAYOUT_H
#define RTSCOPE_DEBUG_LAYOUT_H

#include <stdint.h>

/* Word numbers (the info pointer is word 0) of StgTSO's fields that views
 * name or the GC follows; 0: the GHC has no such field. */
typedef struct dbg_tso_layout {
    uint8_t link, global_link, stackobj, block_info, trec, label,
        blocked_exceptions, bq;
    /* byte offsets of what_next and why_blocked (u16, host order) and of
     * the thread's id (u64) */
    uint8_t what_next_at, why_blocked_at, id_at;
    /* the why_blocked values (a bit each) whose block_info is a closure
     * the GC follows (scavengeTSO) */
    uint32_t why_closure;
} dbg_tso_layout;

typedef struct dbg_layout {
    uint32_t ghc;     /* __GLASGOW_HASKELL__: 902, 906 */
    const char *name; /* "9.0.2" */
    dbg_tso_layout tso;
} dbg_layout;

/* The layout of the GHC whose version a stub or snapshot gives, or NULL:
 * a GHC rtscope does not read. */
const dbg_layout *dbg_layout_for(uint32_t ghc);
/* GHC 9.0.2's, for a heap that does not say (tests' hand-made sources). */
const dbg_layout *dbg_layout_default(void);
/* The GHCs rtscope reads, for messages: "9.0.2 (902) and 9.6.6 (906)". */
const char *dbg_layout_known(void);

#endif
