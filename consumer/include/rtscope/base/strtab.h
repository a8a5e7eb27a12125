/* strtab: strings interned to dense ids (0, 1, 2... in order of arrival),
 * each kept once, found by content through the hash map. For the tables
 * that name things once and refer to them by number: a pprof profile's
 * string table, a report's string dictionary, the group names of the heap
 * analyses.
 *
 * Ownership: a table copies each new string (NUL-terminated) and frees the
 * copies with itself; one made with borrowed = 1 (before its first id)
 * keeps the caller's pointers instead, which must outlive it, and whose
 * strings need not end at their length. */
#ifndef RTSCOPE_BASE_STRTAB_H
#define RTSCOPE_BASE_STRTAB_H

#include "rtscope/base/hmap.h"

#include <stddef.h>
#include <stdint.h>

typedef struct strtab {
    char **s;    /* by id */
    size_t *len; /* by id */
    size_t n, cap;
    int borrowed;
    hmap index; /* string hash -> id */
} strtab;

/* The id of s[0..len) (which may hold NULs), added if new; -1 when out of
 * memory. A zeroed strtab is empty, and copies. */
int64_t strtab_id(strtab *t, const char *s, size_t len);
/* The same for a C string. */
int64_t strtab_id_str(strtab *t, const char *s);
void strtab_free(strtab *t);

#endif
