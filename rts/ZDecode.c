/* -----------------------------------------------------------------------------
 *
 * (c) The rtscope developers, 2026
 *
 * Reading GHC's z-encoded symbol names.
 *
 * ---------------------------------------------------------------------------*/

#include "RtscopeGhc.h"
#include "Rts.h"

#include "RtsUtils.h"
#include "ZDecode.h"

#include <string.h>

/* Note [Names of info tables]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * GHC names the code and data it emits after the Haskell entity, with every
 * character outside [a-zA-Y0-9] z-encoded (GHC.Utils.Encoding): "zi" is
 * '.', "zu" is '_', "ZC" is ':', "Z3T" is "(,,)", "z2254U" is a code point,
 * and so on. An encoded name never contains a bare '_', so '_' separates
 * the components of a symbol unambiguously:
 *
 *   ghczmprim_GHCziTypes_ZC_con_info    package ghc-prim, module GHC.Types,
 *                                       constructor (:), its info table
 *   base_GHCziMaybe_Just_static_info    a static (:) ... Just closure
 *   Main_Leak_con_info                  the main package is left out
 *   Main_zdwgo_info                     a function or thunk: $wgo
 *   sat_s3ki_info, s3zb_info, r4l3_info a local (internal) closure: its
 *                                       occurrence name (if any) and unique,
 *                                       no module; the unique is printed
 *                                       raw, in base 62: never z-decode it
 *   stg_ARR_WORDS_info                  one of the RTS's own info tables
 *
 * A package component starts with a lower-case letter; a module component
 * (z-encoded or not) with an upper-case one, which is how the package-less
 * form of the main package is told apart.
 *
 * The label we report is the decoded occurrence name ("Leak", ":", "$wgo",
 * "sat_s3ki"); for the RTS's tables the symbol itself without "_info".
 */

static void
put_utf8(char **o, unsigned long c)
{
    char *p = *o;
    if (c < 0x80) {
        *p++ = (char)c;
    } else if (c < 0x800) {
        *p++ = (char)(0xC0 | (c >> 6));
        *p++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *p++ = (char)(0xE0 | (c >> 12));
        *p++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *p++ = (char)(0x80 | (c & 0x3F));
    } else {
        *p++ = (char)(0xF0 | ((c >> 18) & 0x07));
        *p++ = (char)(0x80 | ((c >> 12) & 0x3F));
        *p++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *p++ = (char)(0x80 | (c & 0x3F));
    }
    *o = p;
}

static char
z_lower(char c)
{
    switch (c) {
    case 'z': return 'z';   case 'a': return '&';   case 'b': return '|';
    case 'c': return '^';   case 'd': return '$';   case 'e': return '=';
    case 'g': return '>';   case 'h': return '#';   case 'i': return '.';
    case 'l': return '<';   case 'm': return '-';   case 'n': return '!';
    case 'p': return '+';   case 'q': return '\'';  case 'r': return '\\';
    case 's': return '/';   case 't': return '*';   case 'u': return '_';
    case 'v': return '%';
    default:  return 0;
    }
}

static char
z_upper(char c)
{
    switch (c) {
    case 'Z': return 'Z';   case 'L': return '(';   case 'R': return ')';
    case 'M': return '[';   case 'N': return ']';   case 'C': return ':';
    default:  return 0;
    }
}

char *
zDecode(const char *in, size_t len)
{
    // Decoding never grows a name by more than a factor of two (Z1H is
    // the worst case, 3 bytes to 5), and a code point escape is at least
    // 3 bytes for at most 4 of UTF-8; tuple arities add one ',' per unit.
    size_t cap = 2 * len + 8;
    for (size_t i = 0; i + 1 < len; i++) {
        if (in[i] == 'Z' && in[i+1] >= '0' && in[i+1] <= '9') {
            cap += strtoul(&in[i+1], NULL, 10) + 4;
        }
    }
    char *out = stgMallocBytes(cap, "zDecode");
    char *o = out;
    size_t i = 0;

    while (i < len) {
        char c = in[i];
        if ((c == 'z' || c == 'Z') && i + 1 < len) {
            char d = in[i+1];
            char r = c == 'z' ? z_lower(d) : z_upper(d);
            if (r) {
                *o++ = r;
                i += 2;
                continue;
            }
            if (d >= '0' && d <= '9') {
                size_t j = i + 1;
                if (c == 'Z') {
                    unsigned long n = 0;
                    while (j < len && in[j] >= '0' && in[j] <= '9' && n < 100000) {
                        n = n * 10 + (unsigned long)(in[j] - '0');
                        j++;
                    }
                    if (j < len && (in[j] == 'T' || in[j] == 'H')) {
                        bool unboxed = in[j] == 'H';
                        *o++ = '(';
                        if (unboxed) *o++ = '#';
                        for (unsigned long k = 1; k < n; k++) *o++ = ',';
                        if (unboxed) { if (n <= 1) *o++ = ' '; *o++ = '#'; }
                        *o++ = ')';
                        i = j + 1;
                        continue;
                    }
                } else {
                    unsigned long cp = 0;
                    while (j < len && j - i <= 8 &&
                           ((in[j] >= '0' && in[j] <= '9') ||
                            (in[j] >= 'a' && in[j] <= 'f'))) {
                        cp = cp * 16 + (unsigned long)(in[j] <= '9'
                                                       ? in[j] - '0'
                                                       : in[j] - 'a' + 10);
                        j++;
                    }
                    if (j < len && in[j] == 'U' && cp <= 0x10FFFF) {
                        put_utf8(&o, cp);
                        i = j + 1;
                        continue;
                    }
                }
            }
        }
        *o++ = c;
        i++;
    }
    *o = '\0';
    return out;
}

static bool
ends_with(const char *s, size_t len, const char *suffix, size_t *stem)
{
    size_t n = strlen(suffix);
    if (len < n || strcmp(s + len - n, suffix) != 0) {
        return false;
    }
    *stem = len - n;
    return true;
}

static bool
is_upper(char c) { return c >= 'A' && c <= 'Z'; }

static bool
is_lower(char c) { return c >= 'a' && c <= 'z'; }

/* A local (internal) name: its z-encoded occurrence name, '_', and its
 * unique, which GHC prints raw in base 62 (so "s3zb" is a unique, not
 * "s3|"); a name that is only a unique (s3ki, r4l3) has no '_'. */
static char *
localName(const char *sym, size_t len)
{
    const char *us = NULL;
    for (const char *p = sym; p < sym + len; p++) {
        if (*p == '_') us = p;
    }
    if (us == NULL) {
        char *r = stgMallocBytes(len + 1, "localName");
        memcpy(r, sym, len);
        r[len] = '\0';
        return r;
    }
    char *occ = zDecode(sym, us - sym);
    size_t olen = strlen(occ), ulen = sym + len - us;   // '_' + unique
    char *r = stgMallocBytes(olen + ulen + 1, "localName");
    memcpy(r, occ, olen);
    memcpy(r + olen, us, ulen);
    r[olen + ulen] = '\0';
    stgFree(occ);
    return r;
}

bool
infoSymbolNames(const char *sym, char **module, char **label)
{
    *module = NULL;
    *label = NULL;

    size_t len = strlen(sym), stem;
    if (!(ends_with(sym, len, "_con_info", &stem)
          || ends_with(sym, len, "_static_info", &stem)
          || ends_with(sym, len, "_info", &stem))
        || stem == 0) {
        return false;
    }

    if (strncmp(sym, "stg_", 4) == 0) {
        // The RTS's own tables (stg_ARR_WORDS_info, stg_ap_2_upd_info):
        // not z-encoded, and they belong to no Haskell module.
        size_t n = len - strlen("_info");
        *label = stgMallocBytes(n + 1, "infoSymbolNames");
        memcpy(*label, sym, n);
        (*label)[n] = '\0';
        return true;
    }

    // components: [package_] Module_ occ   or a local   occ[_unique]
    const char *first_end = memchr(sym, '_', stem);
    if (first_end == NULL || first_end == sym) {
        *label = localName(sym, stem);
        return true;
    }
    const char *mod_start = NULL;
    if (is_upper(sym[0])) {
        mod_start = sym;                 // Main_foo: the main package
    } else if (is_lower(sym[0]) && is_upper(first_end[1])) {
        mod_start = first_end + 1;       // pkg_Module_occ
    }
    if (mod_start != NULL) {
        const char *mod_end = memchr(mod_start, '_', sym + stem - mod_start);
        if (mod_end != NULL && mod_end + 1 < sym + stem) {
            *module = zDecode(mod_start, mod_end - mod_start);
            *label = zDecode(mod_end + 1, sym + stem - (mod_end + 1));
            return true;
        }
    }
    *label = localName(sym, stem);
    return true;
}

static bool
is_module_char(char c)
{
    return (c >= 'a' && c <= 'z') || is_upper(c) || (c >= '0' && c <= '9')
        || c == '_' || c == '\'';
}

void
conDescNames(const char *con_desc, char **pkg_module, char **module,
             char **con)
{
    *pkg_module = NULL;
    *module = NULL;
    *con = NULL;
    if (con_desc == NULL) return;

    // "package:Module.Sub.Con" (the package has no ':'; the constructor,
    // an operator such as ":" or ":|", may contain '.' and ':').
    const char *colon = strchr(con_desc, ':');
    if (colon == NULL || colon == con_desc) return;
    const char *p = colon + 1;
    const char *mod_end = NULL;     // the '.' that ends the module name
    // Module components: an upper-case letter, then identifier characters,
    // then a '.' with something after it.
    while (is_upper(*p)) {
        const char *q = p + 1;
        while (is_module_char(*q)) q++;
        if (*q != '.' || q[1] == '\0') break;
        mod_end = q;
        p = q + 1;
    }
    if (mod_end == NULL) return;

    size_t pm = mod_end - con_desc;
    *pkg_module = stgMallocBytes(pm + 1, "conDescNames");
    memcpy(*pkg_module, con_desc, pm);
    (*pkg_module)[pm] = '\0';

    size_t m = mod_end - (colon + 1);
    *module = stgMallocBytes(m + 1, "conDescNames");
    memcpy(*module, colon + 1, m);
    (*module)[m] = '\0';

    *con = stgMallocBytes(strlen(mod_end + 1) + 1, "conDescNames");
    strcpy(*con, mod_end + 1);
}

char *
infoSymbolPackage(const char *sym)
{
    if (strncmp(sym, "stg_", 4) == 0) return NULL;
    const char *first_end = strchr(sym, '_');
    if (first_end == NULL || first_end == sym) return NULL;
    if (is_upper(sym[0])) {
        // Main_foo: the main package, whose symbols GHC leaves unprefixed
        char *r = stgMallocBytes(5, "infoSymbolPackage");
        strcpy(r, "main");
        return r;
    }
    if (is_lower(sym[0]) && is_upper(first_end[1])
        && strchr(first_end + 1, '_') != NULL) {
        return zDecode(sym, first_end - sym);
    }
    return NULL;
}
