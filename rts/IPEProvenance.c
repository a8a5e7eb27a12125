/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Provenance of info tables read from the loaded binaries: ELF symbols of
 * the executable and of every shared object, and the DWARF that GHC emits
 * with -g. Each object is indexed once (libelf, libdw); a lookup is a
 * binary search.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "RtsFlags.h"
#include "IPEProvenance.h"
#include "ZDecode.h"
#include "Trace.h"
#include "eventlog/EventLog.h"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <dwarf.h>
#include <link.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/auxv.h>

/* Note [Info table provenance from the binary]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC 9.2 learns where an info table comes from through -finfo-table-map:
 * the compiler emits a table of (info table, provenance) that the RTS
 * registers at startup. GHC 9.0.2 has no such flag, so rtscope reads the
 * same facts from the program's own binaries, for the tables a heap census
 * (or the debug stub) actually meets:
 *
 *  * the loaded objects: dl_iterate_phdr lists the executable and every
 *    shared object with its load address, so with -dynamic the tables of
 *    base's libHSbase-*.so resolve like the program's own. When an address
 *    falls outside every known object and the dynamic linker has loaded
 *    something since (dlpi_adds), the list is read again.
 *
 *  * the table name: the ELF symbol exactly at the info pointer (with
 *    tables next to code, GHC's Foo_info label marks the end of the
 *    table, which is where closures point).
 *
 *  * a table without a symbol of its own (the thunks and functions local
 *    to a binding: GHC emits their labels as assembler-local .L symbols in
 *    every library Debian ships) is named by the top-level binding whose
 *    code holds it. See Note [The binding that holds a table].
 *
 *  * with -g, GHC's DWARF (see Note [GHC's DWARF])
 *      - a DW_TAG_subprogram per code block, whose DW_AT_low_pc is the
 *        info pointer (GHC 9.0.2) or the byte before it (GHC 9.6, whose
 *        procedures' DWARF begins one byte before their label, so that
 *        the label's address lies inside: both are looked for), whose
 *        DW_AT_MIPS_linkage_name (9.6: DW_AT_linkage_name) is the label
 *        even when the symbol table has none (local closures:
 *        s3ki_info), and whose DW_AT_name is the Haskell binder it
 *        belongs to;
 *      - its source notes: the span of the Haskell expression (GHC 9.6
 *        writes them with -g3 only; with -g, the line table's
 *        file:line:col stands in);
 *      - the compile unit, whose other subprograms tell the module of a
 *        local closure.
 *    A constructor's info table (Foo_con_info) has no code of its own and
 *    so no source note; its span is that of the constructor's worker
 *    (Foo_info), which GHC attaches to the constructor's declaration.
 *    When no note is found, the line table gives file:line:col.
 *
 * Everything is cached by rts/IPEBinary.c, so each table costs one lookup per
 * run; see Note [The provenance index] for what a lookup costs.
 */

/* Note [The provenance index]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A real program's binary is big: a pandoc-based converter is 160 MB with
 * 110,000 info tables among 300,000 symbols. libdwfl's symbol lookup
 * (dwfl_module_addrinfo) scans the whole symbol table on every call, so
 * naming the 3,000 tables of one census stalled that census for seconds,
 * and for a stripped binary (no .symtab) far longer. So each loaded object
 * is indexed once:
 *
 *  - the symbols of its executable sections (.symtab, else .dynsym) in one
 *    array sorted by address, one entry per address (a Haskell info symbol
 *    preferred, then a global one); names point into the ELF file, which
 *    libelf maps read-only (clean, shared pages);
 *  - with DWARF, its address ranges (dwarf_getaranges), and for each
 *    compile unit, the first time a lookup lands in it, its subprograms
 *    sorted by low_pc.
 *
 * A lookup is a binary search in the object list and one in its symbols
 * (and, with -g, one in the unit's subprograms). Indexing the 160 MB
 * binary takes tens of milliseconds; provenanceStart, called when -hi is
 * on, does it on a thread of its own while the program starts, so the
 * first census's pause only waits for whatever is left of it. The thread
 * runs with every signal blocked and touches nothing of the RTS's but
 * malloc; its result is adopted by the first lookup. A child of fork()
 * does not have the thread: it abandons the parent's half-built index and
 * builds its own.
 */

/* Note [The binding that holds a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC emits the code of one top-level binding as one group: the procedures
 * of the closures local to it (its thunks and functions, each starting
 * with its info table), then the binding's own procedure, whose symbol
 * (Module_f_info) is the only one in the group that reaches the symbol
 * table. Code generation emits a closure's procedure as soon as its body
 * is generated, before the enclosing one's, which is why the locals come
 * first; with -split-sections (as Debian builds every library) each
 * procedure is a section of its own, .text..Ls5yi_info, kept in the same
 * order by the linker. So:
 *
 *  - a closure's table without a symbol of its own belongs to the next
 *    binding symbol after it in the same section;
 *  - a stack frame's table (a return point) lies inside the procedure it
 *    returns to, after that procedure's entry. GHC gives each binding
 *    symbol the size of its procedure (.size, the whole procedure), so a
 *    return point within the previous binding symbol's procedure is that
 *    binding's. One past its end lies in a procedure without a symbol:
 *    a local closure's (which belongs to the next binding symbol) or a
 *    top-level binding GHC made internal (a worker $wf, a specialisation,
 *    a floated binding: no symbol reaches the table at all). Nothing
 *    without -g tells the two apart, so such a frame is left without a
 *    binding rather than given a wrong one: sampled call stacks
 *    (rts/Sampling.c) count a caller's share as the share of stacks that
 *    hold its frames, and a worker's frame named after the binding that
 *    follows it would give that binding every caller's share. Its module
 *    is not in doubt when the bindings before and after it are of one
 *    module (a module's code is one block of the section): the frame is
 *    then named by that module alone. (A symbol without a size: the
 *    previous binding, as before sizes were read.)
 *
 * Only symbols of Haskell code count as bindings (Module_f_info, not a
 * constructor's Module_C_con_info or Module_C_static_info, which are tables
 * without code, nor the RTS's stg_ symbols or C functions), and the search
 * stops after a few symbols: a table that far from any binding keeps its
 * address. With -g, DWARF says the same exactly (a subprogram's DW_AT_name
 * is its binder), and wins.
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
 * any libelf/libdw error only leaves fields empty: the census goes on and
 * labels its bands by address, as -hi always does. Why provenance is
 * missing is said once per run on stderr in the debug RTS under the heap
 * profiler's debug flag or stderr tracing (+RTS -Dp, -v), and as an
 * "rtscope: " log message in the eventlog when it is on; never on stderr
 * otherwise: a profile without names is still a correct profile.
 */

/* Note [Symbols in a separate debug file]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A stripped executable has no .symtab, and its .dynsym names only what
 * it exports: nothing, unless it was linked with -Wl,-E (as Debian's lua
 * package asks on 9.0.2). A stripped pandoc leaves three quarters of its
 * heap as addresses, the constructors alone named. Distributions and
 * careful deployments keep the symbols in a separate debug file (objcopy
 * --only-keep-debug, Debian's -dbgsym packages), which is found as gdb and
 * perf find it: by build ID at /usr/lib/debug/.build-id/NN/REST.debug,
 * then by the name in .gnu_debuglink in the object's directory, its
 * .debug/ and /usr/lib/debug/DIR/. A debug file has the object's section
 * headers (its code as SHT_NOBITS, at the same addresses), .symtab, and
 * the DWARF if there was any: it is read in the object's place, with the
 * object's bias. It must be the object's own: the same build ID, or, for
 * an object without one, the CRC-32 .gnu_debuglink records. A stripped
 * object without one keeps .dynsym's names, as before. Only the
 * executable and Haskell shared libraries are looked up: C libraries hold
 * no info table, and their debug files (libc6-dbg's) are large.
 */

// How many symbols a search for the binding that holds a table looks at.
// See Note [The binding that holds a table].
#define BINDING_SEARCH 64

static bool warned_no_symbols = false;
static bool warned_no_dwarf = false;
static bool reported_index = false;

static void
provenanceSay(bool *once, const char *fmt, ...) GNUC3_ATTRIBUTE(format (printf, 2, 3));

static void
provenanceSay(bool *once, const char *fmt, ...)
{
    if (*once) return;
    *once = true;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): started just above
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
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

static bool
endsWith(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* -----------------------------------------------------------------------------
 * The index of one object
 * ---------------------------------------------------------------------------*/

#define SYM_INFO     1u     // a Haskell info symbol: ..._info
#define SYM_BINDING  2u     // the info symbol of a binding's code
#define SYM_GLOBAL   4u

typedef struct ProvSymbol_ {
    GElf_Addr addr;         // link-time address
    GElf_Xword size;        // st_size: the procedure's length, or 0
    const char *name;       // in the mapped ELF file
    uint32_t section;       // index into ProvObject.sections
    uint32_t flags;
} ProvSymbol;

typedef struct ProvSection_ {
    GElf_Addr lo, hi;       // link-time addresses
} ProvSection;

typedef struct ProvSub_ {
    Dwarf_Addr low_pc;
    Dwarf_Off die;
    const char *linkage;    // DW_AT_MIPS_linkage_name (libdw's memory)
} ProvSub;

typedef struct ProvUnit_ {
    Dwarf_Off offset;       // of the compile unit's DIE
    ProvSub *subs;          // sorted by low_pc
    uint32_t n_subs;
    char *module;           // from its subprograms' linkage names, or NULL
    struct ProvUnit_ *next;
} ProvUnit;

typedef struct ProvObject_ {
    char *path;
    GElf_Addr bias;         // runtime address = link-time address + bias
    StgWord lo, hi;         // runtime range of its executable segments
    int fd;
    Elf *elf;
    ProvSection *sections;  // executable sections
    uint32_t n_sections;
    ProvSymbol *syms;       // sorted by address, one per address
    uint32_t n_syms;
    bool has_symtab;        // .symtab (not only .dynsym)
    bool debug_file;        // elf and fd are its separate debug file's
    bool exe;               // the executable (not a shared object)
    Dwarf *dwarf;           // NULL without .debug_info
    ProvUnit *units;
    struct ProvObject_ *next;
} ProvObject;

typedef struct ProvIndex_ {
    ProvObject *objects;            // sorted by lo
    unsigned long long adds;        // dlpi_adds when listed
    uint32_t n_objects;
    uint64_t n_syms;
    uint32_t n_debug_files;         // objects read from their debug file
    double build_ms;
} ProvIndex;

static int
symbolOrder(const void *a, const void *b)
{
    const ProvSymbol *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    // the best name for an address first: an info symbol, a global one
    uint32_t rx = (x->flags & SYM_INFO ? 0 : 2) + (x->flags & SYM_GLOBAL ? 0 : 1);
    uint32_t ry = (y->flags & SYM_INFO ? 0 : 2) + (y->flags & SYM_GLOBAL ? 0 : 1);
    if (rx != ry) return rx < ry ? -1 : 1;
    return strcmp(x->name, y->name);
}

static uint32_t
symbolFlags(const char *name, unsigned char bind)
{
    uint32_t f = bind == STB_GLOBAL || bind == STB_WEAK ? SYM_GLOBAL : 0;
    size_t len = strlen(name);
    if (!endsWith(name, len, "_info") || len == 5) return f;
    f |= SYM_INFO;
    if (!endsWith(name, len, "_con_info") && !endsWith(name, len, "_static_info")
        && strncmp(name, "stg_", 4) != 0) {
        f |= SYM_BINDING;
    }
    return f;
}

/* ELF section kind of an object's code: PROGBITS, or NOBITS in a separate
 * debug file (Note [Symbols in a separate debug file]). */
static bool
isCodeSection(const GElf_Shdr *sh)
{
    return (sh->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR)
        && (sh->sh_type == SHT_PROGBITS || sh->sh_type == SHT_NOBITS);
}

/* Read the symbols of `o`'s executable sections into o->syms. */
static void
indexSymbols(ProvObject *o)
{
    size_t n_scns = 0;
    if (elf_getshdrnum(o->elf, &n_scns) != 0 || n_scns == 0) return;

    // executable sections, and the map from ELF section index to them
    int32_t *exec_of = stgMallocBytes(sizeof(int32_t) * n_scns, "indexSymbols");
    for (size_t i = 0; i < n_scns; i++) exec_of[i] = -1;
    o->sections = stgMallocBytes(sizeof(ProvSection) * n_scns, "indexSymbols");
    Elf_Scn *symtab = NULL, *dynsym = NULL;
    for (Elf_Scn *scn = elf_nextscn(o->elf, NULL); scn != NULL;
         scn = elf_nextscn(o->elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL) continue;
        if (sh.sh_type == SHT_SYMTAB) symtab = scn;
        if (sh.sh_type == SHT_DYNSYM) dynsym = scn;
        if (isCodeSection(&sh)) {
            size_t idx = elf_ndxscn(scn);
            if (idx < n_scns) {
                exec_of[idx] = (int32_t) o->n_sections;
                o->sections[o->n_sections].lo = sh.sh_addr;
                o->sections[o->n_sections].hi = sh.sh_addr + sh.sh_size;
                o->n_sections++;
            }
        }
    }
    Elf_Scn *scn = symtab != NULL ? symtab : dynsym;
    o->has_symtab = symtab != NULL;
    GElf_Shdr sh;
    Elf_Data *data;
    if (scn == NULL || gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0
        || (data = elf_getdata(scn, NULL)) == NULL) {
        stgFree(exec_of);
        return;
    }
    size_t count = data->d_size / sh.sh_entsize;
    o->syms = stgMallocBytes(sizeof(ProvSymbol) * (count > 0 ? count : 1),
                             "indexSymbols");
    uint32_t n = 0;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym s;
        if (gelf_getsym(data, (int) i, &s) == NULL) continue;
        unsigned char type = GELF_ST_TYPE(s.st_info);
        if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE) continue;
        if (s.st_shndx == SHN_UNDEF || s.st_shndx >= n_scns
            || s.st_shndx >= SHN_LORESERVE || exec_of[s.st_shndx] < 0) {
            continue;
        }
        const char *name = elf_strptr(o->elf, sh.sh_link, s.st_name);
        if (name == NULL || name[0] == '\0' || name[0] == '.' || name[0] == '$') {
            continue;
        }
        o->syms[n].addr = s.st_value;
        o->syms[n].size = s.st_size;
        o->syms[n].name = name;
        o->syms[n].section = (uint32_t) exec_of[s.st_shndx];
        o->syms[n].flags = symbolFlags(name, GELF_ST_BIND(s.st_info));
        n++;
    }
    stgFree(exec_of);
    qsort(o->syms, n, sizeof(ProvSymbol), symbolOrder);
    // one entry per address: the best name (first after sorting)
    uint32_t w = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (w > 0 && o->syms[w - 1].addr == o->syms[r].addr) continue;
        o->syms[w++] = o->syms[r];
    }
    o->n_syms = w;
}

static void
indexDwarf(ProvObject *o)
{
    // dwarf_begin_elf fails quietly (DWARF_E_NO_DWARF) without .debug_info
    Dwarf *dw = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);
    if (dw == NULL) return;
    Dwarf_Aranges *ar;
    size_t n = 0;
    if (dwarf_getaranges(dw, &ar, &n) != 0 || n == 0) {
        dwarf_end(dw);
        return;
    }
    o->dwarf = dw;
}

static void
freeObject(ProvObject *o)
{
    for (ProvUnit *u = o->units, *next; u != NULL; u = next) {
        next = u->next;
        if (u->subs != NULL) stgFree(u->subs);
        if (u->module != NULL) stgFree(u->module);
        stgFree(u);
    }
    if (o->dwarf != NULL) dwarf_end(o->dwarf);
    if (o->elf != NULL) elf_end(o->elf);
    if (o->fd >= 0) close(o->fd);
    if (o->syms != NULL) stgFree(o->syms);
    if (o->sections != NULL) stgFree(o->sections);
    stgFree(o->path);
    stgFree(o);
}

/* The section named `name` of `elf`, or NULL. */
static Elf_Scn *
sectionNamed(Elf *elf, const char *name)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return NULL;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL) continue;
        const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
        if (n != NULL && strcmp(n, name) == 0) return scn;
    }
    return NULL;
}

/* Whether `elf` has a symbol table (SHT_SYMTAB, as indexSymbols reads it),
 * not only .dynsym. */
static bool
hasSymtab(Elf *elf)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB) return true;
    }
    return false;
}

/* `elf`'s build ID (GNU note) into id (at most max bytes): its length, 0 if none. */
static size_t
buildId(Elf *elf, unsigned char *id, size_t max)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn != NULL; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE
            || (d = elf_getdata(scn, NULL)) == NULL) {
            continue;
        }
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off, next;
        while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4
                && memcmp((char *) d->d_buf + name_off, "GNU", 4) == 0
                && nh.n_descsz > 0 && nh.n_descsz <= max) {
                memcpy(id, (char *) d->d_buf + desc_off, nh.n_descsz);
                return nh.n_descsz;
            }
            off = next;
        }
    }
    return 0;
}

/* The CRC-32 .gnu_debuglink uses (the IEEE polynomial, reflected) of the file fd. */
static bool
fileCrc32(int fd, uint32_t *out)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    const size_t size = 1 << 16;
    unsigned char *buf = stgMallocBytes(size, "fileCrc32");
    uint32_t crc = 0xffffffffu;
    ssize_t n;
    off_t at = 0;
    while ((n = pread(fd, buf, size, at)) > 0) {
        for (ssize_t i = 0; i < n; i++) crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
        at += n;
    }
    stgFree(buf);
    *out = crc ^ 0xffffffffu;
    return n == 0;
}

/* Open `path` as o's debug file if it is o's own (the same build ID, or
 * the CRC its debuglink records): its fd and Elf replace o's. */
static bool
tryDebugFile(ProvObject *o, const char *path, const unsigned char *id, size_t id_len,
             bool check_crc, uint32_t crc)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    unsigned char id2[64];
    uint32_t crc2 = 0;
    bool ok = elf != NULL && elf_kind(elf) == ELF_K_ELF
        && hasSymtab(elf)
        && (id_len > 0 ? buildId(elf, id2, sizeof(id2)) == id_len
                             && memcmp(id, id2, id_len) == 0
                       : check_crc && fileCrc32(fd, &crc2) && crc2 == crc);
    if (!ok) {
        if (elf != NULL) elf_end(elf);
        close(fd);
        return false;
    }
    elf_end(o->elf);
    close(o->fd);
    o->elf = elf;
    o->fd = fd;
    o->debug_file = true;
    return true;
}

/* A stripped object's debug file, if there is one: see Note [Symbols in a
 * separate debug file]. */
static void
findDebugFile(ProvObject *o)
{
    unsigned char id[64];
    size_t id_len = buildId(o->elf, id, sizeof(id));
    char path[PATH_MAX + 64];
    if (id_len >= 2) {
        int w = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
        for (size_t i = 1; i < id_len && w > 0 && (size_t) w + 3 < sizeof(path); i++) {
            w += snprintf(path + w, sizeof(path) - (size_t) w, "%02x", id[i]);
        }
        if (w > 0 && (size_t) w + 7 < sizeof(path)) {
            memcpy(path + w, ".debug", 7);
            if (tryDebugFile(o, path, id, id_len, false, 0)) return;
        }
    }
    Elf_Scn *scn = sectionNamed(o->elf, ".gnu_debuglink");
    Elf_Data *d = scn != NULL ? elf_getdata(scn, NULL) : NULL;
    if (d == NULL || d->d_size < 8) return;
    const char *name = d->d_buf;
    size_t name_len = strnlen(name, d->d_size);
    size_t crc_at = (name_len + 4) & ~(size_t) 3;
    if (name_len == 0 || crc_at + 4 > d->d_size || strchr(name, '/') != NULL) return;
    uint32_t crc;
    memcpy(&crc, (const char *) d->d_buf + crc_at, 4);
    char dir[PATH_MAX];
    const char *slash = strrchr(o->path, '/');
    size_t dir_len = slash != NULL ? (size_t) (slash - o->path) : 0;
    if (dir_len >= sizeof(dir)) return;
    memcpy(dir, o->path, dir_len);
    dir[dir_len] = '\0';
    static const char *const forms[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
    for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
        int n = snprintf(path, sizeof(path), forms[k], dir, name);
        if (n <= 0 || (size_t) n >= sizeof(path) || strcmp(path, o->path) == 0) continue;
        if (tryDebugFile(o, path, id, id_len, true, crc)) return;
    }
}

/* Whether o may hold info tables: the executable, or a Haskell shared
 * library (libHS*.so: -dynamic). Only those get their debug file looked
 * for: C libraries' (libc6-dbg's, say) hold no table, and reading their
 * DWARF took 185 ms of a 190 ms index. */
static bool
mayHoldInfoTables(const ProvObject *o)
{
    const char *slash = strrchr(o->path, '/');
    const char *base = slash != NULL ? slash + 1 : o->path;
    return o->exe || strncmp(base, "libHS", 5) == 0;
}

static ProvObject *
openObject(const char *path, GElf_Addr bias, StgWord lo, StgWord hi, bool exe)
{
    ProvObject *o = stgMallocBytes(sizeof(ProvObject), "openObject");
    memset(o, 0, sizeof(*o));
    o->path = dupString(path);
    o->bias = bias;
    o->lo = lo;
    o->hi = hi;
    o->exe = exe;
    o->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (o->fd >= 0) {
        o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
        if (o->elf != NULL && elf_kind(o->elf) == ELF_K_ELF) {
            if (mayHoldInfoTables(o) && !hasSymtab(o->elf)) {
                findDebugFile(o);
            }
            indexSymbols(o);
            indexDwarf(o);
        }
    }
    return o;
}

/* -----------------------------------------------------------------------------
 * The loaded objects
 * ---------------------------------------------------------------------------*/

typedef struct LoadedObject_ {
    char path[1024];
    GElf_Addr base;
    StgWord lo, hi;
    bool exe;
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
    o->exe = name == NULL || name[0] == '\0';
    o->base = info->dlpi_addr;
    o->lo = (StgWord) -1;
    o->hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        StgWord s = info->dlpi_addr + ph->p_vaddr;
        if (s < o->lo) o->lo = s;
        if (s + ph->p_memsz > o->hi) o->hi = s + ph->p_memsz;
    }
    if (o->hi > o->lo) lo->n++;
    return 0;
}

static int
countObjects(struct dl_phdr_info *info STG_UNUSED, size_t size STG_UNUSED,
             void *data)
{
    (*(uint32_t *)data)++;
    return 0;
}

static unsigned long long
loadedAdds(void)
{
    LoadedObjects probe = { .objs = NULL, .n = 0, .cap = 0, .adds = 0 };
    dl_iterate_phdr(collectObject, &probe);
    return probe.adds;
}

static double
nowMs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static bool
sameObject(const ProvObject *o, const LoadedObject *l)
{
    return o->bias == l->base && o->lo == l->lo && strcmp(o->path, l->path) == 0;
}

/* List the loaded objects into `idx`, keeping the objects of `old` that are
 * still loaded (their index is reused) and freeing the others. */
static void
indexLoadedObjects(ProvIndex *idx, ProvObject *old)
{
    double t0 = nowMs();
    uint32_t count = 0;
    dl_iterate_phdr(countObjects, &count);
    LoadedObjects lo = { .n = 0, .cap = count + 8, .adds = 0 };
    lo.objs = stgMallocBytes(sizeof(LoadedObject) * lo.cap, "indexLoadedObjects");
    dl_iterate_phdr(collectObject, &lo);

    ProvObject *list = NULL;
    for (uint32_t i = 0; i < lo.n; i++) {
        ProvObject *o = NULL;
        for (ProvObject **p = &old; *p != NULL; p = &(*p)->next) {
            if (sameObject(*p, &lo.objs[i])) {
                o = *p;
                *p = o->next;
                break;
            }
        }
        if (o == NULL) {
            o = openObject(lo.objs[i].path, lo.objs[i].base,
                           lo.objs[i].lo, lo.objs[i].hi, lo.objs[i].exe);
        }
        // insert sorted by lo
        ProvObject **p = &list;
        while (*p != NULL && (*p)->lo < o->lo) p = &(*p)->next;
        o->next = *p;
        *p = o;
    }
    while (old != NULL) {
        ProvObject *next = old->next;
        freeObject(old);
        old = next;
    }
    stgFree(lo.objs);

    idx->objects = list;
    idx->adds = lo.adds;
    idx->n_objects = 0;
    idx->n_syms = 0;
    idx->n_debug_files = 0;
    for (ProvObject *o = list; o != NULL; o = o->next) {
        idx->n_objects++;
        idx->n_syms += o->n_syms;
        idx->n_debug_files += o->debug_file;
    }
    idx->build_ms = nowMs() - t0;
}

/* -----------------------------------------------------------------------------
 * Building the index: in the background, adopted by the first lookup.
 * See Note [The provenance index].
 * ---------------------------------------------------------------------------*/

static ProvIndex index_ = { .objects = NULL, .adds = 0, .n_objects = 0,
                            .n_syms = 0, .n_debug_files = 0, .build_ms = 0 };
static bool index_built = false;

static pthread_t indexer;
static bool indexer_running = false;    // started, not joined yet
static pid_t indexer_pid;
static ProvIndex indexer_result;

static void *
indexerMain(void *arg STG_UNUSED)
{
    indexLoadedObjects(&indexer_result, NULL);
    return NULL;
}

void
provenanceStart(void)
{
    if (indexer_running || index_built) return;
    if (elf_version(EV_CURRENT) == EV_NONE) return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&indexer, NULL, indexerMain, NULL) == 0) {
        indexer_running = true;
        indexer_pid = getpid();
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static ProvIndex *
theIndex(void)
{
    if (indexer_running) {
        indexer_running = false;
        if (getpid() == indexer_pid && pthread_join(indexer, NULL) == 0) {
            index_ = indexer_result;
            index_built = true;
        }
        // else: a child of fork(), where the thread does not exist; what it
        // had built is abandoned (its memory stays allocated).
    }
    if (!index_built) {
        index_built = true;
        if (elf_version(EV_CURRENT) != EV_NONE) {
            indexLoadedObjects(&index_, NULL);
        }
    }
    if (!reported_index && index_.n_debug_files > 0) {
        provenanceSay(&reported_index,
                      "provenance index: %u objects, %llu symbols, %.1f ms; "
                      "%u read from a separate debug file",
                      index_.n_objects, (unsigned long long) index_.n_syms,
                      index_.build_ms, index_.n_debug_files);
    } else if (!reported_index) {
        provenanceSay(&reported_index,
                      "provenance index: %u objects, %llu symbols, %.1f ms",
                      index_.n_objects, (unsigned long long) index_.n_syms,
                      index_.build_ms);
    }
    return &index_;
}

static ProvObject *
objectAt(ProvIndex *idx, StgWord addr)
{
    for (ProvObject *o = idx->objects; o != NULL && o->lo <= addr; o = o->next) {
        if (addr < o->hi) return o;
    }
    return NULL;
}

static ProvObject *
objectOf(StgWord addr)
{
    ProvIndex *idx = theIndex();
    ProvObject *o = objectAt(idx, addr);
    if (o == NULL && loadedAdds() != idx->adds) {
        // loaded since we last looked (dlopen)?
        ProvObject *old = idx->objects;
        idx->objects = NULL;
        indexLoadedObjects(idx, old);
        o = objectAt(idx, addr);
    }
    return o;
}

/* -----------------------------------------------------------------------------
 * Symbols
 * ---------------------------------------------------------------------------*/

/* The first symbol at or after link-time address `a`. */
static uint32_t
symbolFrom(const ProvObject *o, GElf_Addr a)
{
    uint32_t lo = 0, hi = o->n_syms;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (o->syms[mid].addr < a) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int32_t
sectionOf(const ProvObject *o, GElf_Addr a)
{
    for (uint32_t i = 0; i < o->n_sections; i++) {
        if (o->sections[i].lo <= a && a < o->sections[i].hi) return (int32_t) i;
    }
    return -1;
}

/* The length of a Z-encoded Haskell symbol's package and module prefix,
 * "pkg_Module_" of "pkg_Module_label_info" ('_' only separates: Z-encoding
 * writes a name's own underscores as "zu"), or 0. */
static size_t
modulePrefixLength(const char *sym)
{
    const char *last = strrchr(sym, '_');           // "_info"
    if (last == NULL || last == sym) return 0;
    const char *p = last - 1;
    while (p > sym && *p != '_') p--;               // before the label
    return *p == '_' ? (size_t) (p - sym) + 1 : 0;
}

/* The nearest binding symbol of section `sec` before the table (back) or
 * from it on (!back), among BINDING_SEARCH symbols, or NULL. `i` is the
 * first symbol after the table. */
static const ProvSymbol *
nearBinding(const ProvObject *o, int32_t sec, uint32_t i, bool back)
{
    for (uint32_t k = 0; k < BINDING_SEARCH; k++) {
        if (back ? k >= i : i + k >= o->n_syms) return NULL;
        const ProvSymbol *s = &o->syms[back ? i - k - 1 : i + k];
        if (s->section != (uint32_t) sec) return NULL;
        if (s->flags & SYM_BINDING) return s;
    }
    return NULL;
}

/* A frame's table past the end of the previous binding's procedure (see
 * the Note): the previous binding symbol, when the next one is of the same
 * module, else NULL. `i` is the first symbol after the table. */
static const char *
moduleNeighbourOf(const ProvObject *o, GElf_Addr a, uint32_t i)
{
    int32_t sec = sectionOf(o, a);
    if (sec < 0) return NULL;
    const ProvSymbol *prev = nearBinding(o, sec, i, true);
    const ProvSymbol *next = nearBinding(o, sec, i, false);
    if (prev == NULL || next == NULL) return NULL;
    size_t n = modulePrefixLength(prev->name);
    return n > 0 && n == modulePrefixLength(next->name)
                   && memcmp(prev->name, next->name, n) == 0
               ? prev->name : NULL;
}

/* See Note [The binding that holds a table]. `i` is the first symbol after
 * the table. */
static const char *
bindingOf(const ProvObject *o, GElf_Addr a, uint32_t i, bool frame)
{
    int32_t sec = sectionOf(o, a);
    if (sec < 0) return NULL;
    const ProvSymbol *s = nearBinding(o, sec, i, frame);
    if (s == NULL) return NULL;
    // a frame past the end of its procedure: see the Note
    if (frame && s->size != 0 && a >= s->addr + s->size) return NULL;
    return s->name;
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

static int
subOrder(const void *a, const void *b)
{
    const ProvSub *x = a, *y = b;
    if (x->low_pc != y->low_pc) return x->low_pc < y->low_pc ? -1 : 1;
    return x->die < y->die ? -1 : x->die > y->die;
}

/* The subprogram index of a compile unit, built the first time a lookup
 * lands in it. See Note [The provenance index]. */
static ProvUnit *
unitOf(ProvObject *o, Dwarf_Die *cu)
{
    Dwarf_Off off = dwarf_dieoffset(cu);
    for (ProvUnit *u = o->units; u != NULL; u = u->next) {
        if (u->offset == off) return u;
    }
    ProvUnit *u = stgMallocBytes(sizeof(ProvUnit), "unitOf");
    memset(u, 0, sizeof(*u));
    u->offset = off;
    uint32_t cap = 0;
    Dwarf_Die child;
    if (dwarf_child(cu, &child) == 0) {
        do {
            if (dwarf_tag(&child) != DW_TAG_subprogram) continue;
            Dwarf_Addr lo;
            if (dwarf_lowpc(&child, &lo) != 0) continue;
            if (u->n_subs == cap) {
                cap = cap ? 2 * cap : 64;
                u->subs = stgReallocBytes(u->subs, sizeof(ProvSub) * cap, "unitOf");
            }
            const char *ln = linkageName(&child);
            u->subs[u->n_subs].low_pc = lo;
            u->subs[u->n_subs].die = dwarf_dieoffset(&child);
            u->subs[u->n_subs].linkage = ln;
            u->n_subs++;
            // The module: the module prefix of any subprogram that carries
            // one (a local closure's own name does not).
            char *module = NULL, *label = NULL;
            if (u->module == NULL && ln != NULL
                && infoSymbolNames(ln, &module, &label)) {
                if (label != NULL) stgFree(label);
                u->module = module;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    if (u->n_subs > 0) qsort(u->subs, u->n_subs, sizeof(ProvSub), subOrder);
    u->next = o->units;
    o->units = u;
    return u;
}

static bool
subprogramStarting(ProvObject *o, ProvUnit *u, Dwarf_Addr pc, Dwarf_Die *out)
{
    uint32_t lo = 0, hi = u->n_subs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (u->subs[mid].low_pc < pc) lo = mid + 1; else hi = mid;
    }
    return lo < u->n_subs && u->subs[lo].low_pc == pc
        && dwarf_offdie(o->dwarf, u->subs[lo].die, out) != NULL;
}

/* The subprogram of the code block whose info pointer is pc: its DWARF
 * begins at pc (GHC 9.0.2) or one byte before (GHC 9.6). See Note [Info
 * table provenance from the binary]. */
static bool
subprogramAt(ProvObject *o, ProvUnit *u, Dwarf_Addr pc, Dwarf_Die *out)
{
    return subprogramStarting(o, u, pc, out)
        || (pc > 0 && subprogramStarting(o, u, pc - 1, out));
}

static bool
subprogramNamed(ProvObject *o, ProvUnit *u, const char *name, Dwarf_Die *out)
{
    for (uint32_t i = 0; i < u->n_subs; i++) {
        if (u->subs[i].linkage != NULL && strcmp(u->subs[i].linkage, name) == 0) {
            return dwarf_offdie(o->dwarf, u->subs[i].die, out) != NULL;
        }
    }
    return false;
}

/* "file:line:col" of the line table's row for address a, or NULL. */
static char *
lineTableLoc(Dwarf_Die *cu, Dwarf_Addr a)
{
    Dwarf_Line *line = dwarf_getsrc_die(cu, a);
    int lineno = 0, col = 0;
    const char *file = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
    if (file == NULL || dwarf_lineno(line, &lineno) != 0 || lineno <= 0) return NULL;
    dwarf_linecol(line, &col);
    char path[1000], buf[1200];
    sourcePath(cu, file, path, sizeof(path));
    snprintf(buf, sizeof(buf), "%s:%d:%d", path, lineno, col);
    return dupString(buf);
}

static void
dwarfLookup(ProvObject *o, GElf_Addr a, ProvenanceResult *out)
{
    Dwarf_Die cu;
    if (o->dwarf == NULL || dwarf_addrdie(o->dwarf, a, &cu) == NULL) {
        // Only the program's own code is expected to carry GHC's DWARF;
        // Debian's libraries are built without -g.
        if (o->exe && o->dwarf == NULL) {
            provenanceSay(&warned_no_dwarf,
                          "no DWARF for %s (build with -g for source spans)",
                          o->path);
        }
        return;
    }
    ProvUnit *u = unitOf(o, &cu);
    if (u->module != NULL) out->module = dupString(u->module);

    Dwarf_Die sub;
    // Only a subprogram that starts exactly at the info pointer speaks for
    // it: an address inside some other code (a table without DWARF of its
    // own) must not borrow that code's names. See Note [Info table
    // provenance from the binary].
    if (!subprogramAt(o, u, a, &sub)) return;
    if (out->table_name == NULL) {
        const char *ln = linkageName(&sub);
        if (ln != NULL) out->table_name = dupString(ln);
    }
    const char *binder = dwarf_diename(&sub);
    if (binder != NULL && binder[0] != '\0') out->binder = dupString(binder);

    // A constructor's table has no code: use its worker's span.
    // See Note [Info table provenance from the binary].
    const char *tn = out->table_name;
    size_t tl = tn ? strlen(tn) : 0;
    const char *suffix = NULL;
    if (tl > 9 && endsWith(tn, tl, "_con_info")) suffix = "_con_info";
    else if (tl > 12 && endsWith(tn, tl, "_static_info")) suffix = "_static_info";
    if (suffix != NULL) {
        size_t stem = tl - strlen(suffix);
        char *worker = stgMallocBytes(stem + 6, "dwarfLookup");
        memcpy(worker, tn, stem);
        strcpy(worker + stem, "_info");
        Dwarf_Die wsub;
        Dwarf_Addr wlo;
        if (subprogramNamed(o, u, worker, &wsub)) {
            out->srcloc = subprogramSpan(&wsub);
            // no source notes (GHC 9.6 writes them at -g3 only): the line
            // of the worker's first instruction, one byte past its DWARF
            // start on either GHC
            if (out->srcloc == NULL && dwarf_lowpc(&wsub, &wlo) == 0) {
                out->srcloc = lineTableLoc(&cu, wlo + 1);
            }
        }
        stgFree(worker);
        return;
    }
    out->srcloc = subprogramSpan(&sub);
    if (out->srcloc == NULL) out->srcloc = lineTableLoc(&cu, a);
}

/* -----------------------------------------------------------------------------
 * Lookup
 * ---------------------------------------------------------------------------*/

void
provenanceLookup(StgWord addr, bool frame, ProvenanceResult *out)
{
    memset(out, 0, sizeof(*out));

    ProvObject *o = objectOf(addr);
    if (o == NULL || o->elf == NULL) {
        provenanceSay(&warned_no_symbols,
                      "no readable loaded object holds info table %p; "
                      "bands are addresses only", (void *) addr);
        return;
    }
    GElf_Addr a = addr - o->bias;
    uint32_t i = symbolFrom(o, a);
    if (i < o->n_syms && o->syms[i].addr == a) {
        out->table_name = dupString(o->syms[i].name);
    } else {
        if (!o->has_symtab) {
            provenanceSay(&warned_no_symbols,
                          "no symbol table in %s (stripped?) and no debug file "
                          "of it (by build ID or .gnu_debuglink); "
                          "unnamed bands are addresses only", o->path);
        }
        const char *b = bindingOf(o, a, i, frame);
        if (b != NULL) {
            out->binding = dupString(b);
        } else if (frame) {
            const char *n = moduleNeighbourOf(o, a, i);
            if (n != NULL) out->neighbour = dupString(n);
        }
    }
    dwarfLookup(o, a, out);
}

void
provenanceFree(void)
{
    if (indexer_running) {
        (void) theIndex();
    }
    while (index_.objects != NULL) {
        ProvObject *next = index_.objects->next;
        freeObject(index_.objects);
        index_.objects = next;
    }
    index_built = false;
    reported_index = false;
}
