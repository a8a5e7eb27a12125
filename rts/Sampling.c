/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Sampled call stacks, in time and in allocation, without -prof:
 *
 *   --sample-time[=INTERVAL]   the stack of the thread running on each
 *                              capability, every INTERVAL (default 10ms)
 *   --sample-alloc[=SIZE]      the stack of the thread that allocates, about
 *                              every SIZE bytes a capability allocates
 *                              (default 512k)
 *   --sample-depth=N           at most N frames a stack (default 64)
 *
 * See Note [Sampling].
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"
#include "Rtscope.h"

#include "RtsUtils.h"
#include "Capability.h"
#include "GetTime.h"
#include "Trace.h"
#include "eventlog/EventLog.h"
#include "IPEBinary.h"
#include "HeapSnapshot.h"
#include "Sampling.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Note [Sampling]
 * ~~~~~~~~~~~~~~~
 * Both kinds of sample end in samplingStop(), which walks the thread's stack
 * (its state saved) and posts the sample into the capability's eventlog
 * buffer, touching no Haskell heap. A time sample is taken as the thread
 * returns to the scheduler, in stg_returnToSched after its registers are
 * saved and before threadPaused() blackholes the thunks it is evaluating;
 * the thread is put back at the front of its run queue (ThreadYielding
 * without a context switch) and goes on. An allocation sample is taken
 * where the allocation failed its check, in stg_gc_noregs: the thread's
 * state is saved, the sample taken, the state loaded again and the
 * allocation retried. (Sent through the scheduler as time samples are,
 * each of the thousands of allocation samples a second of a program that
 * allocates GBs would cost a scheduler round trip and a threadPaused() on
 * top of the stack walk; taken in place, the sampler's own functions are
 * under 1% of the CPU samples perf takes of pandoc and aeson at the
 * default rate: benchmarks/sampling.)
 *
 * Time. Every INTERVAL the ticker (handle_tick) adds INTERVAL to the pending
 * time of each capability that is running Haskell code (in_haskell) and
 * interrupts it (interruptCapability: HpLim = 0, as a context switch does,
 * but without moving the thread to the back of the queue). The thread stops
 * at its next heap check; its sample carries the time pending, so a thread
 * that ran through several intervals before it stopped (a loop that does
 * not allocate cannot be stopped, as for -prof's ticks) is weighed right.
 * Time spent in the RTS (GC) and in foreign calls is not sampled.
 *
 * Allocation. Compiled code allocates by bumping Hp and comparing it with
 * HpLim, the end of the nursery block; only a failed check reaches the RTS.
 * Sampling at block ends would be biased (a loop whose allocations divide
 * the block size always crosses it in the same place), so each capability
 * has a sample point, a byte count of its allocation drawn as a Poisson
 * process (gaps exponentially distributed with mean SIZE, as Go's
 * MemProfileRate), and HpLim is lowered to the point whenever a block that
 * holds it is opened for compiled code (samplingAllocLimit, from
 * stg_gc_noregs after OPEN_NURSERY and stg_returnToStackTop after
 * LOAD_THREAD_STATE). The allocation that covers the point fails its check
 * exactly there; stg_gc_noregs asks samplingAllocCheck whether the HpLim it
 * met was our point, and if so takes the sample there and retries. The
 * capability's allocation so far is total_allocated (words, counted as each
 * block is closed and by allocate()) plus the open block's used part.
 *
 * Each sample stands for SIZE bytes times the number of points the sampled
 * allocation covers (usually one). Points passed where no check could see
 * them (compiled code reopens a block with its full HpLim after a safe
 * foreign call; allocate() counts large objects and arrays without a heap
 * check) are taken at the next allocation, flagged late
 * (SAMPLE_FLAG_LATE), with the weight of every point passed: bytes are
 * never lost, only their stack can be a little late.
 *
 * The frames: from the thread's Sp, innermost first, following underflow
 * frames into older stack chunks, at most --sample-depth. A return frame is
 * named by its info table; an update frame by the thunk it will update,
 * while that thunk is not yet blackholed (it is skipped once it is); the
 * frame a heap check pushed to re-enter a closure (stg_enter, a function's
 * RET_FUN) by that closure; the frames a heap check pushes to save live
 * values (stg_ret_*, the return points of stg_gc_pp and the like) are
 * skipped. Each table's EVENT_IPE is posted
 * before its first use (ipeTraceForSample), named as -hi names it.
 *
 * A sample is posted as a user binary message, ASCII text with an
 * "rtscope:" prefix (the layout is in Sampling.h), into the capability's
 * own buffer, so it goes wherever the eventlog goes: the file, the socket.
 */

#define MAX_SAMPLE_CAPS 256
#define DEFAULT_TIME_NS   (10 * 1000000ULL)
#define DEFAULT_ALLOC     (512 * 1024ULL)
#define DEFAULT_DEPTH     64
#define MAX_DEPTH         1000

SamplingConfig sampling_config = {
    .time_ns = DEFAULT_TIME_NS,
    .alloc_bytes = DEFAULT_ALLOC,
    .depth = DEFAULT_DEPTH,
};

int rtscope_sampling = 0;
int rtscope_sampling_alloc = 0;

typedef struct {
    StgWord64 time_pending;  // ns, added by the ticker, taken by the cap
    StgWord64 alloc_next;    // byte count of the capability's next point
    StgWord lowered;         // the HpLim samplingAllocLimit set, or 0
    StgWord alloc_size;      // HpAlloc of the allocation that met it
    bool alloc_started;
    bool alloc_due;
    bool alloc_late;
    uint64_t rng;
    StgWord64 *frames;       // the stack being sampled (--sample-depth)
    char *text;              // the message being written (sampleTextSize)
    // the tables this capability has given ipeTraceForSample() in stream
    // `posted_stream`, direct-mapped: Note [The frames' IPE events]
    StgWord *posted;
    StgWord posted_stream;
} SampleCap;

/* Note [The frames' IPE events]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each frame's table must have its EVENT_IPE in the stream before the
 * sample that names it. ipeTraceForSample() knows, under a lock and a hash
 * lookup; a deep stack asks for 64 tables a sample, thousands of samples a
 * second, almost all already posted. So each capability remembers the
 * tables it has given it in the current stream (a direct-mapped array,
 * forgotten when the stream changes: ipeCurrentStream()) and asks only for
 * the others. On pandoc at the default rate this took the lock, the hash
 * and the call from 0.7% of the run's CPU samples (perf) to 0.14%, and
 * the whole sampler to about 1%. */
#define POSTED_SLOTS 1024

static SampleCap sample_caps[MAX_SAMPLE_CAPS];
static StgWord64 time_accum; // ticker thread only

/* ---- flags ---------------------------------------------------------------- */

static bool
parseInterval (const char *s, StgWord64 *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno != 0 || !(x > 0)) return false;
    double scale = 1e9; // a bare number is seconds, as -i and -V take them
    if (strcmp(end, "ns") == 0) scale = 1;
    else if (strcmp(end, "us") == 0) scale = 1e3;
    else if (strcmp(end, "ms") == 0) scale = 1e6;
    else if (strcmp(end, "s") == 0 || *end == '\0') scale = 1e9;
    else return false;
    x *= scale;
    if (x < 1e6 || x > 1e10) return false;
    *out = (StgWord64) x;
    return true;
}

bool
samplingFlag (const char *arg, const char **bad)
{
    SamplingConfig *c = &sampling_config;
    *bad = NULL;
    if (strncmp(arg, "time", 4) == 0 || strncmp(arg, "alloc", 5) == 0 ||
        strncmp(arg, "depth", 5) == 0) {
#if !defined(TRACING)
        *bad = "samples go to the eventlog: link the program with -eventlog";
        return false;
#endif
    }
    if (strcmp(arg, "time") == 0) {
        c->time = true;
        return true;
    }
    if (strncmp(arg, "time=", 5) == 0) {
        if (!parseInterval(arg + 5, &c->time_ns)) {
            *bad = "INTERVAL is a time from 1ms to 10s: 10ms, 0.005s, 500us "
                   "(a bare number is seconds)";
            return false;
        }
        c->time = true;
        return true;
    }
    if (strcmp(arg, "alloc") == 0) {
        c->alloc = true;
        return true;
    }
    if (strncmp(arg, "alloc=", 6) == 0) {
        char *end;
        StgWord64 n;
        if (!rtscopeParseSize(arg + 6, &end, &n) || *end != '\0' ||
            n < 256 || n > (1ULL << 40)) {
            *bad = "SIZE is a number of bytes from 256 to 1t, with k, m or g: "
                   "512k, 64k, 4m";
            return false;
        }
        c->alloc_bytes = n;
        c->alloc = true;
        return true;
    }
    if (strncmp(arg, "depth=", 6) == 0) {
        char *end;
        errno = 0;
        unsigned long n = strtoul(arg + 6, &end, 10);
        if (end == arg + 6 || *end != '\0' || errno != 0 || n == 0 ||
            n > MAX_DEPTH) {
            *bad = "N is a number of frames from 1 to 1000";
            return false;
        }
        c->depth = (uint32_t) n;
        return true;
    }
    *bad = "the sampling flags are --sample-time[=INTERVAL], "
           "--sample-alloc[=SIZE] and --sample-depth=N";
    return false;
}

/* ---- start and stop ------------------------------------------------------- */

static uint64_t
nextRandom (SampleCap *s)
{
    // xorshift64*: enough for sample gaps, and no lock
    uint64_t x = s->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* A gap to the next point: exponentially distributed, mean SIZE, a whole
 * number of words (allocation is word-granular, and a point at a word
 * boundary keeps a lowered HpLim apart from every block's own). */
static StgWord64
nextGap (SampleCap *s)
{
    double u = (double) ((nextRandom(s) >> 11) + 1) / 9007199254740993.0;
    double g = -log(u) * (double) sampling_config.alloc_bytes;
    if (g > 1e15) g = 1e15;
    StgWord64 w = ((StgWord64) g + sizeof(W_) - 1) / sizeof(W_) * sizeof(W_);
    return w == 0 ? sizeof(W_) : w;
}

void
initSampling (void)
{
    SamplingConfig *c = &sampling_config;
    if (!c->time && !c->alloc) return;
#if defined(TRACING)
    if (!eventlog_enabled) {
        errorBelch(RTSCOPE_MSG_PREFIX "--sample-time and --sample-alloc post "
                   "their samples to the eventlog, which is off: add -l or "
                   "--eventlog-socket");
    }
#endif
    if (c->time && RtsFlags.MiscFlags.tickInterval > 0 &&
        (StgWord64) TimeToNS(RtsFlags.MiscFlags.tickInterval) > c->time_ns) {
        errorBelch(RTSCOPE_MSG_PREFIX "--sample-time: the RTS ticks every "
                   "%" FMT_Word64 " ms (-V), so samples come that often; "
                   "add -V with the interval for more",
                   (StgWord64) (TimeToNS(RtsFlags.MiscFlags.tickInterval) / 1000000));
    }
    if (c->time && RtsFlags.MiscFlags.tickInterval == 0) {
        errorBelch(RTSCOPE_MSG_PREFIX "--sample-time: the RTS's timer is off "
                   "(-V0): no time samples");
    }
    uint64_t seed = (uint64_t) getpid() * 0x9E3779B97F4A7C15ULL ^
                    (uint64_t) getMonotonicNSec();
    for (uint32_t i = 0; i < MAX_SAMPLE_CAPS; i++) {
        sample_caps[i].rng = (seed + i * 0xD1B54A32D192ED03ULL) | 1;
    }
    // the frames are named as -hi names bands: start indexing the binary
    ipeStart();
    rtscope_sampling_alloc = c->alloc ? 1 : 0;
    rtscope_sampling = 1;
}

void
exitSampling (void)
{
    __atomic_store_n(&rtscope_sampling_alloc, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&rtscope_sampling, 0, __ATOMIC_RELAXED);
}

/* ---- time ------------------------------------------------------------------ */

void
samplingTick (void)
{
    if (!sampling_config.time ||
        !__atomic_load_n(&rtscope_sampling, __ATOMIC_RELAXED)) {
        return;
    }
    time_accum += TimeToNS(RtsFlags.MiscFlags.tickInterval);
    if (time_accum < sampling_config.time_ns) return;
    StgWord64 w = time_accum;
    time_accum = 0;
    uint32_t n = RTSCOPE_N_CAPS();
    for (uint32_t i = 0; i < n && i < MAX_SAMPLE_CAPS; i++) {
        Capability *cap = RTSCOPE_CAP(i);
        if (!__atomic_load_n(&cap->in_haskell, __ATOMIC_RELAXED)) continue;
        __atomic_fetch_add(&sample_caps[i].time_pending, w, __ATOMIC_RELAXED);
        interruptCapability(cap);
    }
}

/* ---- allocation ---------------------------------------------------------- */

/* The capability's allocation in bytes up to the open nursery block's free
 * pointer (as saved or as just opened). */
static StgWord64
capAllocated (Capability *cap)
{
    bdescr *bd = cap->r.rCurrentNursery;
    StgWord64 n = (StgWord64) cap->total_allocated * sizeof(W_);
    if (bd != NULL) n += (StgWord64) ((StgWord8 *) bd->free - (StgWord8 *) bd->start);
    return n;
}

StgWord
samplingAllocLimit (Capability *cap, StgWord hplim)
{
    if (hplim == 0 || cap->no >= MAX_SAMPLE_CAPS) return hplim;
    SampleCap *s = &sample_caps[cap->no];
    bdescr *bd = cap->r.rCurrentNursery;
    if (bd == NULL) return hplim;
    StgWord64 used = (StgWord64) ((StgWord8 *) bd->free - (StgWord8 *) bd->start);
    StgWord64 base = (StgWord64) cap->total_allocated * sizeof(W_);
    if (!s->alloc_started) {
        s->alloc_started = true;
        s->alloc_next = base + used + nextGap(s);
    }
    StgWord64 end = (StgWord64) (hplim + 1 - (StgWord) bd->start);
    if (s->alloc_next >= base + end) {
        s->lowered = 0;
        return hplim;
    }
    StgWord64 off = s->alloc_next - base;
    if (s->alloc_next < base + used) {
        // passed where no check saw it: the next allocation takes it
        off = used;
        s->alloc_late = true;
    }
    // the allocation that covers byte `off` of the block fails its check
    s->lowered = (StgWord) bd->start + (StgWord) off - sizeof(W_);
    return s->lowered;
}

StgWord
samplingAllocCheck (Capability *cap, StgWord hplim, StgWord hpalloc)
{
    if (cap->no >= MAX_SAMPLE_CAPS) return 0;
    SampleCap *s = &sample_caps[cap->no];
    if (s->lowered == 0 || hplim != s->lowered) return 0;
    s->lowered = 0;
    s->alloc_due = true;
    s->alloc_size = hpalloc;
    return 1;
}

/* ---- the stack and the event --------------------------------------------- */

#if defined(TRACING)

/* n in base `base` (10 or 16, lowercase) after a space at p; the end */
static char *
putNum (char *p, StgWord64 n, unsigned base)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = "0123456789abcdef"[n % base];
        n /= base;
    } while (n != 0);
    *p++ = ' ';
    while (k > 0) *p++ = tmp[--k];
    return p;
}

static bool
isThunkType (StgHalfWord type)
{
    switch (type) {
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC: case THUNK_SELECTOR:
    case AP:
        return true;
    default:
        return false;
    }
}

/* A return point inside one of the heap-check fragments that save live
 * values by calling stg_gc_noregs (HeapStackCheck.cmm): the frame such a
 * fragment pushed, at the top of a stack that stopped at a heap check.
 * Its info table has no symbol of its own; it lies a few instructions
 * after the fragment's entry. */
static bool
isHeapCheckReturn (StgWord info)
{
    static const StgFunPtr fragments[] = {
        (StgFunPtr) stg_gc_pp, (StgFunPtr) stg_gc_ppp, (StgFunPtr) stg_gc_pppp,
        (StgFunPtr) stg_gc_prim, (StgFunPtr) stg_gc_prim_p,
        (StgFunPtr) stg_gc_prim_pp, (StgFunPtr) stg_gc_prim_n,
    };
    for (size_t i = 0; i < sizeof(fragments) / sizeof(fragments[0]); i++) {
        StgWord entry = (StgWord) fragments[i];
        if (info > entry && info - entry < 256) return true;
    }
    return false;
}

/* The stack of tso as frames into out (at most max), innermost first;
 * *truncated when there were more. */
/* Post the EVENT_IPE of `name` unless this capability has since the
 * stream began: Note [The frames' IPE events]. */
static void
traceFrame (SampleCap *s, const StgInfoTable *name)
{
    StgWord stream = ipeCurrentStream();
    if (s->posted_stream != stream) {
        memset(s->posted, 0, sizeof(StgWord) * POSTED_SLOTS);
        s->posted_stream = stream;
    }
    StgWord h = ((StgWord) name >> 3) % POSTED_SLOTS;
    if (s->posted[h] == (StgWord) name) return;
    ipeTraceForSample(name);
    s->posted[h] = (StgWord) name;
}

static uint32_t
walkStack (SampleCap *s, StgTSO *tso, StgWord64 *out, uint32_t max,
           bool *truncated)
{
    StgStack *stack = tso->stackobj;
    StgPtr p = stack->sp;
    StgPtr end = stack->stack + stack->stack_size;
    uint32_t n = 0;
    *truncated = false;
    while (p < end) {
        const StgInfoTable *frame = get_itbl((StgClosure *) p);
        const StgInfoTable *name = frame;
        StgWord info = *p;
        if (frame->type == STOP_FRAME) break;
        if (frame->type == UNDERFLOW_FRAME) {
            stack = ((StgUnderflowFrame *) p)->next_chunk;
            p = stack->sp;
            end = stack->stack + stack->stack_size;
            continue;
        }
        if (info == (StgWord) &stg_enter_info) {
            name = get_itbl(UNTAG_CLOSURE((StgClosure *) p[1]));
        } else if (frame->type == RET_FUN) {
            name = get_itbl(UNTAG_CLOSURE(((StgRetFun *) p)->fun));
        } else if (frame->type == UPDATE_FRAME) {
            const StgInfoTable *u =
                get_itbl(UNTAG_CLOSURE(((StgUpdateFrame *) p)->updatee));
            name = isThunkType(u->type) ? u : NULL;
        } else if (info == (StgWord) &stg_ret_v_info ||
                   info == (StgWord) &stg_ret_p_info ||
                   info == (StgWord) &stg_ret_n_info ||
                   info == (StgWord) &stg_ret_f_info ||
                   info == (StgWord) &stg_ret_d_info ||
                   info == (StgWord) &stg_ret_l_info ||
                   (n == 0 && isHeapCheckReturn(info))) {
            name = NULL;
        }
        if (name != NULL) {
            if (n == max) {
                *truncated = true;
                break;
            }
            traceFrame(s, name);
            out[n++] = (StgWord64) (W_) name;
        }
        p += stack_frame_sizeW((StgClosure *) p);
    }
    return n;
}

// the prefix, four numbers of at most 20 digits, the frames
static size_t
sampleTextSize (void)
{
    return 16 + 4 * 21 + (size_t) sampling_config.depth * 17;
}

/* The buffers are the capability's own, made at its first sample: a
 * sample is written in the scheduler, on whatever C stack the capability's
 * task has, which should not have to hold 25k for a deep --sample-depth. */
static void
postSample (SampleCap *s, Capability *cap, StgTSO *tso, bool alloc,
            StgWord64 weight, StgWord32 size, StgWord16 flags)
{
    if (s->text == NULL) {
        s->frames = stgMallocBytes(sizeof(StgWord64) * sampling_config.depth,
                                   "postSample");
        s->text = stgMallocBytes(sampleTextSize(), "postSample");
        s->posted = stgMallocBytes(sizeof(StgWord) * POSTED_SLOTS,
                                   "postSample");
        memset(s->posted, 0, sizeof(StgWord) * POSTED_SLOTS);
        s->posted_stream = ipeCurrentStream();
    }
    char *buf = s->text;
    StgWord64 *frames = s->frames;
    bool truncated;
    uint32_t depth = walkStack(s, tso, frames, sampling_config.depth, &truncated);
    if (truncated) flags |= SAMPLE_FLAG_TRUNCATED;
    const char *prefix = alloc ? SAMPLE_PREFIX_ALLOC : SAMPLE_PREFIX_TIME;
    size_t plen = strlen(prefix);
    memcpy(buf, prefix, plen);
    char *p = putNum(buf + plen, weight, 10);
    p = putNum(p, (StgWord64) tso->id, 10);
    if (alloc) p = putNum(p, size, 10);
    p = putNum(p, flags, 10);
    for (uint32_t i = 0; i < depth; i++) p = putNum(p, frames[i], 16);
    postUserBinaryEvent(cap, EVENT_USER_BINARY_MSG, (uint8_t *) buf,
                        (size_t) (p - buf));
}

#endif

void
samplingStop (Capability *cap, StgTSO *tso)
{
    if (cap->no >= MAX_SAMPLE_CAPS) return;
    SampleCap *s = &sample_caps[cap->no];
    StgWord64 t = 0;
    if (__atomic_load_n(&s->time_pending, __ATOMIC_RELAXED) != 0) {
        t = __atomic_exchange_n(&s->time_pending, 0, __ATOMIC_RELAXED);
    }
    if (!s->alloc_due && t == 0) return;
#if defined(TRACING)
    bool post = eventlog_enabled;
#else
    bool post = false;
#endif
    if (s->alloc_due) {
        // every point the allocation covers, and any passed before it
        StgWord64 last = capAllocated(cap) + s->alloc_size;
        StgWord64 k = 0;
        while (s->alloc_next < last) {
            k++;
            s->alloc_next += nextGap(s);
        }
        // k is at least 1: the point lies in [.., last) by construction
        // (samplingAllocLimit); without one there is no sample to post
        StgWord16 flags = s->alloc_late ? SAMPLE_FLAG_LATE : 0;
        s->alloc_due = false;
        s->alloc_late = false;
#if !defined(TRACING)
        (void) flags;
#else
        if (post && k > 0) {
            StgWord size = s->alloc_size;
            postSample(s, cap, tso, true, k * sampling_config.alloc_bytes,
                       size > 0xffffffffUL ? 0xffffffffU : (StgWord32) size, flags);
        }
#endif
    }
#if defined(TRACING)
    if (t != 0 && post) postSample(s, cap, tso, false, t, 0, 0);
#else
    (void) post;
    (void) t;
#endif
}
