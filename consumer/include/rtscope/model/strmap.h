/* A map from 64-bit keys (info-table addresses, cost-centre ids) to owned
 * strings, for the sinks that name things (hp, ipe). Open addressing. */
#ifndef RTSCOPE_STRMAP_H
#define RTSCOPE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct strmap strmap;

strmap *strmap_new(void);
void strmap_free(strmap *m);
/* Store a copy of s[0..len) under key (replacing). Returns 0 or -1. */
int strmap_put(strmap *m, uint64_t key, const char *s, size_t len);
/* The string stored under key, or NULL. */
const char *strmap_get(const strmap *m, uint64_t key);
size_t strmap_count(const strmap *m);

#endif
