/* The string hash of rtscope's tables (string interning, name lookups):
 * FNV-1a, with its high bits folded into the low ones, which the tables
 * index by. */
#ifndef RTSCOPE_STRHASH_H
#define RTSCOPE_STRHASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t rtscope_strhash(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h ^ (h >> 32);
}

#endif
