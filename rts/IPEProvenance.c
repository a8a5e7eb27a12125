/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Provenance of info tables read from the loaded binaries: ELF symbols of
 * the executable and of every shared object, and the DWARF that GHC emits
 * with -g. Uses elfutils (libdwfl, libdw, libelf).
 *
 * ---------------------------------------------------------------------------*/

#include "PosixSource.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "RtsFlags.h"
#include "IPEProvenance.h"
#include "ZDecode.h"
#include "Trace.h"
#include "eventlog/EventLog.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <link.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/auxv.h>

/* Note [Info table provenance from the binary]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC 9.2 learns where an info table comes from through -finfo-table-map:
 * the compiler emits a table of (info table, provenance) that the RTS
 * registers at startup. GHC 9.0.2 has no such flag, so rtscope reads the
 * same facts from the program's own binaries, lazily, for the tables a
 * heap census actually meets:
 *
 *  * the loaded objects: dl_iterate_phdr lists the executable and every
 *    shared object with its load address; each is reported to libdwfl
 *    (dwfl_report_elf), so with -dynamic the constructors of base's
 *    libHSbase-*.so resolve like the program's own. When an address
 *    falls outside every known object and the dynamic linker has loaded
 *    something since (dlpi_adds), the list is read again.
 *
 *  * the table name: the ELF symbol exactly at the info pointer (with
 *    tables next to code, GHC's Foo_info label marks the end of the
 *    table, which is where closures point). Only an exact match counts:
 *    a nearby symbol would name a different table.
 *
 *  * with -g, GHC's DWARF (see Note [GHC's DWARF])
 *      - a DW_TAG_subprogram per code block, whose DW_AT_low_pc is the
 *        info pointer and whose DW_AT_MIPS_linkage_name is the label even
 *        when the symbol table has none (local closures: s3ki_info);
 *      - its source notes: the span of the Haskell expression;
 *      - the compile unit, whose other subprograms tell the module of a
 *        local closure.
 *    A constructor's info table (Foo_con_info) has no code of its own and
 *    so no source note; its span is that of the constructor's worker
 *    (Foo_info), which GHC attaches to the constructor's declaration.
 *    When no note is found, the line table gives file:line:col.
 *
 * Everything is cached by rts/IPE.c, so each table costs one lookup per
 * run.
 */

/* Note [GHC's DWARF]
 * ~~~~~~~~~~~~~~~~~~
 * What GHC 9.0.2 writes with -g (GHC.CmmToAsm.Dwarf), as seen with
 * readelf --debug-dump=info:
 *
 *   DW_TAG_compile_unit      DW_AT_name "LeakMap.hs", DW_AT_comp_dir
 *     DW_TAG_subprogram      DW_AT_name "Leak" (the Haskell binder),
 *                            DW_AT_MIPS_linkage_name "Main_Leak_info",
 *                            DW_AT_low_pc/high_pc, and for closures nested
 *                            in another's code 0x2b20 (DW_AT_ghc_tick_parent),
 *                            a reference to the enclosing block
 *       DW_TAG_lexical_block one per Cmm block
 *         0x5b00             (DW_TAG_ghc_src_note) with
 *                            0x2b00 file (string), 0x2b01 start line,
 *                            0x2b02 start column, 0x2b03 end line,
 *                            0x2b04 end column (one past the end)
 *
 * GHC's end column is one past the last character (RealSrcSpan's). We
 * format a note as GHC 9.2 formats IPE source locations (pprUserRealSpan):
 * "file:line:col-col" with the last column inclusive for a span on one
 * line ("file:line:col" for a single character), and
 * "file:(line,col)-(line,col)" for a span over several lines.
 */

#define DW_TAG_ghc_src_note         0x5b00
#define DW_AT_ghc_tick_parent       0x2b20
#define DW_AT_ghc_span_file         0x2b00
#define DW_AT_ghc_span_start_line   0x2b01
#define DW_AT_ghc_span_start_col    0x2b02
#define DW_AT_ghc_span_end_line     0x2b03
#define DW_AT_ghc_span_end_col      0x2b04

/* Note [Provenance degrades, never fails]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A stripped binary, a binary without -g, an unreadable /proc/self/exe or
 * any libdw error only leaves fields empty: the census goes on and labels
 * its bands by address, as -hi always does. Why provenance is missing is
 * said once per run on stderr in the debug RTS under the heap profiler's
 * debug flag or stderr tracing (+RTS -Dp, -v), and as an "rtscope: " log
 * message in the eventlog when it is on; never on stderr otherwise: a profile without names is still
 * a correct profile.
 */

static Dwfl *dwfl = NULL;
static bool dwfl_failed = false;          // do not try again
static unsigned long long loaded_adds = 0; // dlpi_adds when last reported
static bool warned_no_symbols = false;
static bool warned_no_dwarf = false;
static char main_path[1024];              // the executable, as reported

static void
provenanceWarn(bool *once, const char *fmt, const char *arg)
{
    if (*once) return;
    *once = true;
    char msg[512];
    snprintf(msg, sizeof(msg), fmt, arg ? arg : "");
#if defined(DEBUG)
    if (RtsFlags.DebugFlags.prof
        || RtsFlags.TraceFlags.tracing == TRACE_STDERR) {
        debugBelch("rtscope: -hi: %s\n", msg);
    }
#endif
#if defined(TRACING)
    if (eventlog_enabled) {
        trace_("rtscope: -hi: %s", msg);
    }
#endif
}

static char *
dupString(const char *s)
{
    size_t n = strlen(s);
    char *r = stgMallocBytes(n + 1, "IPEProvenance");
    memcpy(r, s, n + 1);
    return r;
}

/* -----------------------------------------------------------------------------
 * The loaded objects
 * ---------------------------------------------------------------------------*/

typedef struct LoadedObject_ {
    char path[1024];
    GElf_Addr base;
} LoadedObject;

typedef struct LoadedObjects_ {
    LoadedObject *objs;
    uint32_t n, cap;
    unsigned long long adds;
} LoadedObjects;

static int
collectObject(struct dl_phdr_info *info, size_t size, void *data)
{
    LoadedObjects *lo = data;
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds)
                + sizeof(info->dlpi_adds)) {
        lo->adds = info->dlpi_adds;
    }
    if (lo->n == lo->cap) {
        // no allocation under the dynamic linker's lock: the caller sized
        // the array; objects beyond it are picked up at the next rescan
        return 0;
    }
    LoadedObject *o = &lo->objs[lo->n];
    const char *name = info->dlpi_name;
    if (name == NULL || name[0] == '\0') {
        // the executable itself
        if (lo->n != 0) return 0; // only the first unnamed entry is
        ssize_t r = readlink("/proc/self/exe", o->path, sizeof(o->path) - 1);
        if (r > 0) {
            o->path[r] = '\0';
        } else {
            const char *fn = (const char *) getauxval(AT_EXECFN);
            if (fn == NULL) return 0;
            snprintf(o->path, sizeof(o->path), "%s", fn);
        }
    } else {
        snprintf(o->path, sizeof(o->path), "%s", name);
    }
    o->base = info->dlpi_addr;
    lo->n++;
    return 0;
}

static int
countObjects(struct dl_phdr_info *info STG_UNUSED, size_t size STG_UNUSED,
             void *data)
{
    (*(uint32_t *)data)++;
    return 0;
}

/* Only what the loaded files themselves hold is read: no separate debug
 * files, and above all no debuginfod, whose network queries (when
 * DEBUGINFOD_URLS is set) could stall a census for seconds. */
static int
noElf(Dwfl_Module *mod STG_UNUSED, void **userdata STG_UNUSED,
      const char *modname STG_UNUSED, Dwarf_Addr base STG_UNUSED,
      char **file_name STG_UNUSED, Elf **elfp STG_UNUSED)
{
    return -1;
}

static int
noSeparateDebuginfo(Dwfl_Module *mod STG_UNUSED, void **userdata STG_UNUSED,
                    const char *modname STG_UNUSED,
                    Dwarf_Addr base STG_UNUSED,
                    const char *file_name STG_UNUSED,
                    const char *debuglink_file STG_UNUSED,
                    GElf_Word debuglink_crc STG_UNUSED,
                    char **debuginfo_file_name STG_UNUSED)
{
    return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = noElf,
    .find_debuginfo = noSeparateDebuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = NULL,
};

static void
reportLoadedObjects(void)
{
    uint32_t count = 0;
    dl_iterate_phdr(countObjects, &count);
    LoadedObjects lo = { .n = 0, .cap = count + 8, .adds = 0 };
    lo.objs = stgMallocBytes(sizeof(LoadedObject) * lo.cap,
                             "reportLoadedObjects");
    dl_iterate_phdr(collectObject, &lo);
    loaded_adds = lo.adds;

    if (dwfl == NULL) {
        dwfl = dwfl_begin(&dwfl_callbacks);
        if (dwfl == NULL) {
            dwfl_failed = true;
            provenanceWarn(&warned_no_symbols,
                           "libdwfl unavailable (%s); bands are addresses only",
                           dwfl_errmsg(-1));
            stgFree(lo.objs);
            return;
        }
    }
    dwfl_report_begin(dwfl);
    if (lo.n > 0) {
        snprintf(main_path, sizeof(main_path), "%s", lo.objs[0].path);
    }
    for (uint32_t i = 0; i < lo.n; i++) {
        // Objects that cannot be opened (the vDSO, a deleted file) are
        // simply not reported; their addresses stay unnamed.
        (void) dwfl_report_elf(dwfl, lo.objs[i].path, lo.objs[i].path, -1,
                               lo.objs[i].base, false);
    }
    dwfl_report_end(dwfl, NULL, NULL);
    stgFree(lo.objs);
}

static Dwfl_Module *
moduleOf(StgWord addr)
{
    if (dwfl_failed) return NULL;
    if (dwfl == NULL) {
        reportLoadedObjects();
        if (dwfl == NULL) return NULL;
    }
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    if (mod == NULL) {
        // loaded since we last looked (dlopen)?
        unsigned long long before = loaded_adds;
        LoadedObjects probe = { .objs = NULL, .n = 0, .cap = 0, .adds = 0 };
        dl_iterate_phdr(collectObject, &probe);
        if (probe.adds != before) {
            reportLoadedObjects();
            mod = dwfl_addrmodule(dwfl, addr);
        }
    }
    return mod;
}

/* -----------------------------------------------------------------------------
 * DWARF
 * ---------------------------------------------------------------------------*/

static const char *
linkageName(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    if (dwarf_attr(die, DW_AT_MIPS_linkage_name, &attr) != NULL
        || dwarf_attr(die, DW_AT_linkage_name, &attr) != NULL) {
        return dwarf_formstring(&attr);
    }
    return NULL;
}

static bool
udataAttr(Dwarf_Die *die, unsigned int name, Dwarf_Word *out)
{
    Dwarf_Attribute attr;
    return dwarf_attr(die, name, &attr) != NULL
        && dwarf_formudata(&attr, out) == 0;
}

/* A GHC source span as GHC 9.2's IPE shows it. See Note [GHC's DWARF]. */
static char *
formatSpan(const char *file, Dwarf_Word line, Dwarf_Word col,
           Dwarf_Word end_line, Dwarf_Word end_col)
{
    char buf[1200];
    unsigned long l = line, c = col, el = end_line, ec = end_col;
    if (el <= l) {
        if (ec > c + 1) {
            snprintf(buf, sizeof(buf), "%.1000s:%lu:%lu-%lu", file, l, c, ec - 1);
        } else {
            snprintf(buf, sizeof(buf), "%.1000s:%lu:%lu", file, l, c);
        }
    } else {
        snprintf(buf, sizeof(buf), "%.1000s:(%lu,%lu)-(%lu,%lu)", file, l, c,
                 el, ec > 0 ? ec - 1 : 0);
    }
    return dupString(buf);
}

/* A path from the line table relative to the compile unit's directory, as
 * GHC names the file in its source notes ("Main.hs", not
 * "/home/me/proj//Main.hs"), with repeated slashes folded. */
static void
sourcePath(Dwarf_Die *cu, const char *file, char *buf, size_t size)
{
    Dwarf_Attribute attr;
    const char *dir = dwarf_attr(cu, DW_AT_comp_dir, &attr) != NULL
                      ? dwarf_formstring(&attr) : NULL;
    if (dir != NULL) {
        size_t n = strlen(dir);
        while (n > 0 && dir[n - 1] == '/') n--;
        if (n > 0 && strncmp(file, dir, n) == 0 && file[n] == '/') {
            file += n;
            while (*file == '/') file++;
        }
    }
    size_t o = 0;
    for (const char *p = file; *p != '\0' && o + 1 < size; p++) {
        if (*p == '/' && o > 0 && buf[o - 1] == '/') continue;
        buf[o++] = *p;
    }
    buf[o] = '\0';
}

/* The first source note in `die`'s subtree, depth first, formatted. */
static char *
firstSourceNote(Dwarf_Die *die, int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(die, &child) != 0) return NULL;
    do {
        if (dwarf_tag(&child) == DW_TAG_ghc_src_note) {
            Dwarf_Attribute attr;
            const char *file = NULL;
            Dwarf_Word line = 0, col = 0, end_line = 0, end_col = 0;
            if (dwarf_attr(&child, DW_AT_ghc_span_file, &attr) != NULL) {
                file = dwarf_formstring(&attr);
            }
            if (file != NULL
                && udataAttr(&child, DW_AT_ghc_span_start_line, &line)
                && udataAttr(&child, DW_AT_ghc_span_start_col, &col)
                && udataAttr(&child, DW_AT_ghc_span_end_col, &end_col)) {
                if (!udataAttr(&child, DW_AT_ghc_span_end_line, &end_line)) {
                    end_line = line;
                }
                return formatSpan(file, line, col, end_line, end_col);
            }
        } else {
            char *r = firstSourceNote(&child, depth + 1);
            if (r != NULL) return r;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return NULL;
}

/* The source span of a subprogram: its own first note, else the first note
 * of the block it is nested in (DW_AT_ghc_tick_parent), else NULL. */
static char *
subprogramSpan(Dwarf_Die *sub)
{
    char *r = firstSourceNote(sub, 0);
    if (r != NULL) return r;
    Dwarf_Die parent = *sub;
    for (int i = 0; i < 8; i++) {
        Dwarf_Attribute attr;
        Dwarf_Die next;
        if (dwarf_attr(&parent, DW_AT_ghc_tick_parent, &attr) == NULL
            || dwarf_formref_die(&attr, &next) == NULL) {
            return NULL;
        }
        r = firstSourceNote(&next, 0);
        if (r != NULL) return r;
        parent = next;
    }
    return NULL;
}

/* Find the subprogram of `cu` with low_pc `pc` (if name == NULL) or with
 * linkage name `name`. */
static bool
findSubprogram(Dwarf_Die *cu, Dwarf_Addr pc, const char *name,
               Dwarf_Die *out)
{
    Dwarf_Die child;
    if (dwarf_child(cu, &child) != 0) return false;
    do {
        if (dwarf_tag(&child) != DW_TAG_subprogram) continue;
        if (name != NULL) {
            const char *ln = linkageName(&child);
            if (ln != NULL && strcmp(ln, name) == 0) {
                *out = child;
                return true;
            }
        } else {
            Dwarf_Addr lo;
            if (dwarf_lowpc(&child, &lo) == 0 && lo == pc) {
                *out = child;
                return true;
            }
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

/* The Haskell module a compile unit was compiled from: the module prefix
 * of any of its subprograms that carries one (a local closure's own name
 * does not). */
static char *
compileUnitModule(Dwarf_Die *cu)
{
    Dwarf_Die child;
    if (dwarf_child(cu, &child) != 0) return NULL;
    do {
        if (dwarf_tag(&child) != DW_TAG_subprogram) continue;
        const char *ln = linkageName(&child);
        char *module = NULL, *label = NULL;
        if (ln != NULL && infoSymbolNames(ln, &module, &label)) {
            if (label != NULL) stgFree(label);
            if (module != NULL) return module;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return NULL;
}

static void
dwarfLookup(Dwfl_Module *mod, StgWord addr, ProvenanceResult *out)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    if (cu == NULL) {
        const char *name = NULL;
        dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &name, NULL);
        // Only the program's own code is expected to carry GHC's DWARF;
        // Debian's libraries are built without -g.
        if (name != NULL && strcmp(name, main_path) == 0) {
            provenanceWarn(&warned_no_dwarf,
                           "no DWARF for %s (build with -g for source spans)",
                           name);
        }
        return;
    }
    Dwarf_Die cu_mem = *cu;
    Dwarf_Die sub;
    // Only a subprogram that starts exactly at the info pointer speaks for
    // it: an address inside some other code (a table without DWARF of its
    // own) must not borrow that code's names. See Note [Info table
    // provenance from the binary].
    if (!findSubprogram(&cu_mem, addr - bias, NULL, &sub)) {
        return;
    }
    if (out->table_name == NULL) {
        const char *ln = linkageName(&sub);
        if (ln != NULL) out->table_name = dupString(ln);
    }

    // A constructor's table has no code: use its worker's span.
    // See Note [Info table provenance from the binary].
    const char *tn = out->table_name;
    size_t tl = tn ? strlen(tn) : 0;
    const char *suffix = NULL;
    if (tl > 9 && strcmp(tn + tl - 9, "_con_info") == 0) suffix = "_con_info";
    else if (tl > 12 && strcmp(tn + tl - 12, "_static_info") == 0) suffix = "_static_info";
    if (suffix != NULL) {
        size_t stem = tl - strlen(suffix);
        char *worker = stgMallocBytes(stem + 6, "dwarfLookup");
        memcpy(worker, tn, stem);
        strcpy(worker + stem, "_info");
        Dwarf_Die wsub;
        if (findSubprogram(&cu_mem, 0, worker, &wsub)) {
            out->srcloc = subprogramSpan(&wsub);
        }
        stgFree(worker);
    } else {
        out->srcloc = subprogramSpan(&sub);
    }

    if (out->srcloc == NULL && suffix == NULL) {
        Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
        int lineno = 0, col = 0;
        const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, &col,
                                                NULL, NULL) : NULL;
        if (file != NULL && lineno > 0) {
            char path[1000], buf[1200];
            sourcePath(&cu_mem, file, path, sizeof(path));
            snprintf(buf, sizeof(buf), "%s:%d:%d", path, lineno, col);
            out->srcloc = dupString(buf);
        }
    }

    out->module = compileUnitModule(&cu_mem);
}

void
provenanceLookup(StgWord addr, ProvenanceResult *out)
{
    out->table_name = NULL;
    out->module = NULL;
    out->srcloc = NULL;

    Dwfl_Module *mod = moduleOf(addr);
    if (mod == NULL) {
        provenanceWarn(&warned_no_symbols,
                       "no loaded object holds an info table (%s); "
                       "bands are addresses only",
                       dwfl_failed ? "libdwfl failed" : "unreadable binary?");
        return;
    }

    GElf_Off offset = 0;
    GElf_Sym sym;
    const char *name = dwfl_module_addrinfo(mod, addr, &offset, &sym,
                                            NULL, NULL, NULL);
    if (name != NULL && offset == 0 && name[0] != '\0') {
        out->table_name = dupString(name);
    } else if (dwfl_module_getsymtab(mod) <= 0) {
        const char *mname = NULL;
        dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &mname, NULL);
        provenanceWarn(&warned_no_symbols,
                       "no symbol table in %s (stripped?); "
                       "unnamed bands are addresses only", mname);
    }

    dwarfLookup(mod, addr, out);
}

void
provenanceFree(void)
{
    if (dwfl != NULL) {
        dwfl_end(dwfl);
        dwfl = NULL;
    }
    dwfl_failed = false;
}
