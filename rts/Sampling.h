/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Sampled call stacks: where the program allocates (+RTS --sample-alloc)
 * and where it spends its time (+RTS --sample-time), posted to the
 * eventlog. See Note [Sampling] in rts/Sampling.c.
 *
 * ---------------------------------------------------------------------------*/

#pragma once

/* A sample is one EVENT_USER_BINARY_MSG (GHC's own variable-size event,
 * declared in every eventlog's header: rtscope-specific data travels in
 * user messages with an "rtscope:" prefix, not in event numbers GHC may
 * later take). Its payload is ASCII text, so that every eventlog reader
 * can show it (ghc-events before 0.18 cannot parse a binary message that
 * is not UTF-8), fields separated by one space:
 *
 *   rtscope:st NS THREAD FLAGS FRAME...          a time sample
 *   rtscope:sa BYTES THREAD SIZE FLAGS FRAME...  an allocation sample
 *
 * NS, BYTES (the sample's weight), THREAD, SIZE (bytes of the sampled
 * allocation, 0 when unknown) and FLAGS are decimal; each FRAME is an info
 * table's address in lowercase hexadecimal without 0x, as EVENT_IPE's
 * `info` field carries it (get_itbl), innermost first. Every token after
 * FLAGS is a frame: a later layout takes a new prefix. */
#define SAMPLE_PREFIX_TIME  "rtscope:st"
#define SAMPLE_PREFIX_ALLOC "rtscope:sa"

#define SAMPLE_FLAG_LATE      1 /* the point had passed before it was seen */
#define SAMPLE_FLAG_TRUNCATED 2 /* the stack was deeper than --sample-depth */

#if !defined(CMINUSMINUS)

#include "BeginPrivate.h"

typedef struct {
    bool time;               // --sample-time[=INTERVAL]
    StgWord64 time_ns;       // INTERVAL (default 10 ms)
    bool alloc;              // --sample-alloc[=SIZE]
    StgWord64 alloc_bytes;   // SIZE (default 512k)
    uint32_t depth;          // --sample-depth=N (default 64)
} SamplingConfig;

extern SamplingConfig sampling_config;

/* Read by the RTS's Cmm (HeapStackCheck.cmm, StgStartup.cmm): any sampling
 * on; allocation sampling on. */
extern int rtscope_sampling;
extern int rtscope_sampling_alloc;

/* From procRtsOpts: arg is what follows "--sample-"; false if it is not
 * one of ours or is bad (*bad then says why). */
bool samplingFlag (const char *arg, const char **bad);

/* From hs_init (after the flags and the eventlog) and hs_exit. */
void initSampling (void);
void exitSampling (void);

/* From handle_tick (rts/Timer.c), on the ticker thread. */
void samplingTick (void);

/* Takes the samples due on cap, of tso, whose state is saved: from
 * stg_returnToSched(ButFirst) (StgStartup.cmm), before threadPaused(), and
 * from stg_gc_noregs at an allocation sample point. */
void samplingStop (Capability *cap, StgTSO *tso);

/* From the Cmm that opens a nursery block for compiled code (a full block
 * in stg_gc_noregs, a thread resumed in stg_returnToStackTop), with the
 * HpLim it set: the HpLim to use, lower when the capability's next
 * allocation sample point falls in the block. */
StgWord samplingAllocLimit (Capability *cap, StgWord hplim);

/* From stg_gc_noregs when a heap check failed with HpLim not 0: 1 if HpLim
 * was the sample point samplingAllocLimit() set (stg_gc_noregs then saves
 * the thread's state, calls samplingStop() and retries the allocation),
 * else 0. */
StgWord samplingAllocCheck (Capability *cap, StgWord hplim, StgWord hpalloc);

#include "EndPrivate.h"

#endif
