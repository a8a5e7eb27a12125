/* The string hash of rtscope's tables (string interning, name lookups,
 * heap band names): eight bytes at a time, then splitmix64's
 * finaliser. Labels are short (a -hi band name is about 9 bytes), so a
 * byte-at-a-time hash (FNV-1a, which this replaced) spent most of its time
 * in its chain of multiplies: `rtscope stats` of a -hi log ran the hash
 * for most of its sink's time. Loads never reach past s[len - 1]: the last
 * word overlaps the one before it instead. */
#ifndef RTSCOPE_STRHASH_H
#define RTSCOPE_STRHASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t rtscope_strhash_load(const char *s, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, s, n);
    return w;
}

/* splitmix64's finaliser: every bit of x reaches every bit of the result
 * (also the duplicate finder's hash, lib/debug/dup_impl.h). */
static inline uint64_t rtscope_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static inline uint64_t rtscope_strhash(const char *s, size_t len)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h = (uint64_t)len * k, w;
    size_t i = 0;
    for (; len - i > 8; i += 8) {
        h = (h ^ rtscope_strhash_load(s + i, 8)) * k;
        h ^= h >> 32;
    }
    if (len >= 8)
        w = rtscope_strhash_load(s + len - 8, 8);
    else if (len >= 4)
        w = rtscope_strhash_load(s, 4) | rtscope_strhash_load(s + len - 4, 4)
                                             << 32;
    else if (len > 0)
        w = (uint64_t)(unsigned char)s[0] |
            (uint64_t)(unsigned char)s[len / 2] << 8 |
            (uint64_t)(unsigned char)s[len - 1] << 16;
    else
        w = 0;
    return rtscope_mix64(h ^ w);
}

#endif
