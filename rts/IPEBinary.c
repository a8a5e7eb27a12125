/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Info table provenance from the program's own binary: the entries
 * lookupIPE gives for the tables the compiler did not register (all of
 * them on GHC 9.0.2, which has no -finfo-table-map; on 9.6 those of every
 * module built without it, Debian's libraries among them), and their
 * EVENT_IPE events for heap profiling by info table (+RTS -hi).
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "RtsFlags.h"
#include "Hash.h"
#include "IPE.h"
#include "IPEBinary.h"
#include "IPEProvenance.h"
#include "ZDecode.h"
#include "Trace.h"
#include "eventlog/EventLog.h"

#include <string.h>
#include <stdio.h>

/* Note [IPE events: once per stream, before first use]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC posts an EVENT_IPE for every entry of the compiler's info table map
 * when the eventlog starts (9.2 and later). The tables named from the
 * binary are in no map, only met by the census, so such a table is posted
 * just before the first heap sample that mentions it: the
 * census calls ipeTraceForSample for each band before it posts
 * EVENT_HEAP_PROF_SAMPLE_BEGIN, so a consumer reading in order always knows
 * a band's name before it sees the band.
 *
 * "First" is per eventlog stream. A consumer that attaches to a restarted
 * eventlog (after fork, after endEventLogging/startEventLogging, a new
 * socket client) reads a new header and has seen none of the earlier
 * events. Each entry therefore remembers the stream that carried it
 * (posted_in); a new stream (ipeEventlogRestarted, called whenever the
 * eventlog header is posted) bumps ipe_stream, which makes every entry
 * unposted in O(1). ipeRepostAll posts everything known at once instead,
 * for code that prefers names up front.
 */

typedef struct IPECacheEntry_ {
    InfoProvEnt ipe;            // first: lookupIPEFromBinary hands out
                                // &entry->ipe
    bool known;                 // anything beyond the closure type?
    StgWord posted_in;          // the stream that carried it; 0: none
    struct IPECacheEntry_ *next;
} IPECacheEntry;

static HashTable *ipe_cache = NULL;   // info pointer -> IPECacheEntry
static IPECacheEntry *ipe_all = NULL; // every entry, newest first
// The current eventlog stream. Bumped without ipe_lock, so that whoever
// starts a stream may hold the eventlog's own locks while doing so.
static StgWord ipe_stream = 1;

static StgWord
currentStream(void)
{
    return __atomic_load_n(&ipe_stream, __ATOMIC_ACQUIRE);
}

StgWord
ipeCurrentStream(void)
{
    return currentStream();
}

#if defined(THREADED_RTS)
static Mutex ipe_lock;

static void ipeInitLock(void) __attribute__((constructor));
static void
ipeInitLock(void)
{
    initMutex(&ipe_lock);
}
#endif

// Each string is bounded so that an EVENT_IPE (six strings and a word)
// always fits the eventlog's 16-bit payload size.
#define IPE_MAX_STRING 1024

static char *
ipeString(const char *s)
{
    if (s == NULL) s = "";
    size_t n = strlen(s);
    if (n > IPE_MAX_STRING - 1) n = IPE_MAX_STRING - 1;
    char *r = stgMallocBytes(n + 1, "ipeString");
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static bool
isConstructor(StgHalfWord type)
{
    switch (type) {
    case CONSTR:
    case CONSTR_1_0:
    case CONSTR_0_1:
    case CONSTR_2_0:
    case CONSTR_1_1:
    case CONSTR_0_2:
    case CONSTR_NOCAF:
        return true;
    default:
        return false;
    }
}

static void
freeIfSet(char *s)
{
    if (s != NULL) stgFree(s);
}

static bool
isFrame(StgHalfWord type)
{
    switch (type) {
    case RET_BCO:
    case RET_SMALL:
    case RET_BIG:
    case RET_FUN:
    case UPDATE_FRAME:
    case CATCH_FRAME:
    case UNDERFLOW_FRAME:
    case STOP_FRAME:
    case ATOMICALLY_FRAME:
    case CATCH_RETRY_FRAME:
    case CATCH_STM_FRAME:
        return true;
    default:
        return false;
    }
}

/* GHC names the code of a proc without a binder of its own after one of its
 * blocks ("c21L"): such a DWARF name is no binder. */
static bool
isBlockLabel(const char *s)
{
    if (s[0] != 'c' || s[1] < '0' || s[1] > '9') return false;
    for (const char *p = s + 1; *p != '\0'; p++) {
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z')
              || (*p >= 'A' && *p <= 'Z'))) {
            return false;
        }
    }
    return true;
}

/* "package:Module", or NULL. */
static char *
packageModule(const char *pkg, const char *module)
{
    if (pkg == NULL || module == NULL) return NULL;
    size_t n = strlen(pkg) + strlen(module) + 2;
    char *r = stgMallocBytes(n, "packageModule");
    snprintf(r, n, "%s:%s", pkg, module);
    return r;
}

#if RTSCOPE_GHC_HAS_IPE_MAP
/* GHC 9.4's InfoProv has the file and the span apart, as the compiler
 * writes them ("src/Data/Aeson.hs" and "12:5-20"), where the binary gives
 * one location ("file:line:col-col", "file:line:col" or
 * "file:(line,col)-(line,col)", IPEProvenance.c): the span starts at the
 * ':' before its line. */
static void
splitSrcLoc(const char *loc, const char **file, const char **span)
{
    if (loc == NULL) {
        *file = ipeString(NULL);
        *span = ipeString(NULL);
        return;
    }
    const char *cut = strstr(loc, ":(");
    if (cut == NULL) {
        // "file:line:col...": the last ':' but one; "file:line": the last
        const char *last = strrchr(loc, ':');
        cut = last;
        for (const char *q = loc; last != NULL && q < last; q++) {
            if (*q == ':') cut = q;
        }
    }
    if (cut == NULL) {
        *file = ipeString(loc);
        *span = ipeString(NULL);
        return;
    }
    size_t n = (size_t) (cut - loc);
    char *f = stgMallocBytes(n + 1, "splitSrcLoc");
    memcpy(f, loc, n);
    f[n] = '\0';
    *file = ipeString(f);
    *span = ipeString(cut + 1);
    stgFree(f);
}
#endif

/* Build the entry of one info table. Sources, best first (see
 * Note [Info table provenance from the binary] in IPEProvenance.c):
 *   table name  ELF symbol, else DWARF linkage name
 *   label       the decoded symbol of a top-level table; else the DWARF
 *               binder; else the binding that holds the table (See Note
 *               [The binding that holds a table]); else the table's own
 *               local name; else the constructor description
 *   module      decoded symbol, else the DWARF compile unit, else the
 *               binding's symbol, else the constructor description
 *   type        "package:Module": constructors from their description,
 *               other tables from their own or their binding's symbol
 *   srcloc      DWARF source note, else the line table
 * As GHC 9.2 means the fields, the label of a closure local to a binding
 * is the binding's name.
 */
static IPECacheEntry *
makeEntry(const StgInfoTable *info)
{
    const StgInfoTable *itbl = INFO_PTR_TO_STRUCT(info);
    IPECacheEntry *e = stgMallocBytes(sizeof(IPECacheEntry), "makeEntry");
    char closure_type[16];
    snprintf(closure_type, sizeof(closure_type), "%u",
             (unsigned int) itbl->type);

    ProvenanceResult pr;
    provenanceLookup((StgWord) info, isFrame(itbl->type), &pr);

    char *sym_module = NULL, *sym_label = NULL, *sym_pkg = NULL;
    if (pr.table_name != NULL) {
        infoSymbolNames(pr.table_name, &sym_module, &sym_label);
        sym_pkg = infoSymbolPackage(pr.table_name);
    }
    char *bind_module = NULL, *bind_label = NULL, *bind_pkg = NULL;
    if (pr.binding != NULL) {
        infoSymbolNames(pr.binding, &bind_module, &bind_label);
        bind_pkg = infoSymbolPackage(pr.binding);
    }
    // a frame in code of no binding we can tell: its module only
    char *nb_module = NULL, *nb_label = NULL, *nb_pkg = NULL;
    if (pr.binding == NULL && pr.neighbour != NULL) {
        infoSymbolNames(pr.neighbour, &nb_module, &nb_label);
        nb_pkg = infoSymbolPackage(pr.neighbour);
    }
    if (pr.binder != NULL && isBlockLabel(pr.binder)) {
        stgFree(pr.binder);
        pr.binder = NULL;
    }

    char *con_pkg_module = NULL, *con_module = NULL, *con_name = NULL;
    if (isConstructor(itbl->type)) {
        conDescNames(GET_CON_DESC(itbl_to_con_itbl(itbl)),
                     &con_pkg_module, &con_module, &con_name);
    }

    const char *label = sym_module ? sym_label
                      : pr.binder ? pr.binder
                      : bind_label ? bind_label
                      : sym_label ? sym_label : con_name;
    const char *module = sym_module ? sym_module
                       : pr.module ? pr.module
                       : bind_module ? bind_module
                       : nb_module ? nb_module : con_module;
    char *ty = con_pkg_module;
    if (ty == NULL) {
        ty = packageModule(sym_pkg ? sym_pkg : bind_pkg ? bind_pkg : nb_pkg,
                           module);
    } else {
        con_pkg_module = NULL;
    }

    e->ipe.info = (StgInfoTable *) info;
    e->ipe.prov.table_name   = ipeString(pr.table_name);
    e->ipe.prov.closure_desc = ipeString(closure_type);
    e->ipe.prov.ty_desc      = ipeString(ty);
    e->ipe.prov.label        = ipeString(label);
    e->ipe.prov.module       = ipeString(module);
#if RTSCOPE_GHC_HAS_IPE_MAP
    splitSrcLoc(pr.srcloc, &e->ipe.prov.src_file, &e->ipe.prov.src_span);
#else
    e->ipe.prov.srcloc       = ipeString(pr.srcloc);
#endif
    e->known = pr.table_name != NULL || label != NULL || module != NULL
            || pr.srcloc != NULL;
    e->posted_in = 0;

    freeIfSet(pr.table_name);
    freeIfSet(pr.binding);
    freeIfSet(pr.neighbour);
    freeIfSet(pr.binder);
    freeIfSet(pr.module);
    freeIfSet(pr.srcloc);
    freeIfSet(sym_module);
    freeIfSet(sym_label);
    freeIfSet(sym_pkg);
    freeIfSet(bind_module);
    freeIfSet(bind_label);
    freeIfSet(bind_pkg);
    freeIfSet(nb_module);
    freeIfSet(nb_label);
    freeIfSet(nb_pkg);
    freeIfSet(ty);
    freeIfSet(con_pkg_module);
    freeIfSet(con_module);
    freeIfSet(con_name);
    return e;
}

void
ipeStart(void)
{
    provenanceStart();
}

/* Call with ipe_lock held. */
static IPECacheEntry *
cachedEntry(const StgInfoTable *info)
{
    if (ipe_cache == NULL) {
        ipe_cache = allocHashTable();
    }
    IPECacheEntry *e = lookupHashTable(ipe_cache, (StgWord) info);
    if (e == NULL) {
        e = makeEntry(info);
        insertHashTable(ipe_cache, (StgWord) info, e);
        e->next = ipe_all;
        ipe_all = e;
    }
    return e;
}

InfoProvEnt *
lookupIPEFromBinary(const StgInfoTable *info)
{
    if (info == NULL) return NULL;
    ACQUIRE_LOCK(&ipe_lock);
    IPECacheEntry *e = cachedEntry(info);
    RELEASE_LOCK(&ipe_lock);
    return e->known ? &e->ipe : NULL;
}

/* Is anyone listening for IPE events? The eventlog, or (debug RTS, +RTS
 * -v) the stderr tracer, which prints them as GHC 9.2's does. */
static bool
ipeTracing(void)
{
#if defined(TRACING)
#if defined(DEBUG)
    if (RtsFlags.TraceFlags.tracing == TRACE_STDERR) return true;
#endif
    return eventlog_enabled;
#else
    return false;
#endif
}

const char *
ipeSrcLoc(const InfoProv *p, char *buf, size_t len)
{
#if RTSCOPE_GHC_HAS_IPE_MAP
    const char *file = p->src_file != NULL ? p->src_file : "";
    const char *span = p->src_span != NULL ? p->src_span : "";
    if (*span == '\0') return file;
    snprintf(buf, len, "%s:%s", file, span);
    return buf;
#else
    (void) buf;
    (void) len;
    return p->srcloc != NULL ? p->srcloc : "";
#endif
}

/* Call with ipe_lock held. */
static void
postEntry(IPECacheEntry *e STG_UNUSED)
{
#if defined(TRACING)
#if RTSCOPE_GHC_HAS_IPE_MAP
    // the eventlog, or the stderr tracer; the event carries the info
    // table's address, as do the labels of the samples ("%p" of get_itbl)
    traceIPE(&e->ipe);
#else
    const InfoProv *p = &e->ipe.prov;
#if defined(DEBUG)
    if (RtsFlags.TraceFlags.tracing == TRACE_STDERR) {
        debugBelch("IPE: table_name %s, closure_desc %s, ty_desc %s, "
                   "label %s, module %s, srcloc %s\n",
                   p->table_name, p->closure_desc, p->ty_desc, p->label,
                   p->module, p->srcloc);
        e->posted_in = currentStream();
        return;
    }
#endif
    if (!eventlog_enabled) return;
    // The event carries the info table's address, as do the labels of the
    // samples ("%p" of get_itbl(p)); See Note [-hi and
    // RtsFlags.ProfFlags.doHeapProfile] in rts/IPE.c.
    postIPE((StgWord64) (W_) INFO_PTR_TO_STRUCT(e->ipe.info),
            p->table_name, p->closure_desc, p->ty_desc, p->label,
            p->module, p->srcloc);
#endif
    e->posted_in = currentStream();
#endif
}

void
ipeTraceForSample(const StgInfoTable *itbl)
{
    if (!ipeTracing()) return;
#if defined(TABLES_NEXT_TO_CODE)
    const StgInfoTable *info = itbl + 1;
#else
    const StgInfoTable *info = itbl;
#endif
#if RTSCOPE_GHC_HAS_IPE_MAP
    // The compiler's own entries (-finfo-table-map) are the GHC's to post:
    // it posts them all whenever a stream starts.
    if (lookupCompiledIPE(info) != NULL) return;
#endif
    ACQUIRE_LOCK(&ipe_lock);
    IPECacheEntry *e = cachedEntry(info);
    if (e->posted_in != currentStream()) {
        postEntry(e);
    }
    RELEASE_LOCK(&ipe_lock);
}

void
ipeEventlogRestarted(void)
{
    // 64 bits: no wrap-around in the life of a process.
    __atomic_add_fetch(&ipe_stream, 1, __ATOMIC_ACQ_REL);
}

void
ipeRepostAll(void)
{
    ACQUIRE_LOCK(&ipe_lock);
    for (IPECacheEntry *e = ipe_all; e != NULL; e = e->next) {
        postEntry(e);
    }
    RELEASE_LOCK(&ipe_lock);
}

void
ipeForkChild(void)
{
#if defined(THREADED_RTS)
    initMutex(&ipe_lock);
#endif
}
