/* Web assets compiled into rtscope (generated from consumer/web/ by
 * tools/embed.c at build time: see the Makefile). */
#ifndef RTSCOPE_ASSETS_H
#define RTSCOPE_ASSETS_H

#include <stddef.h>

typedef struct asset {
    const char *name; /* path under consumer/web/ */
    const unsigned char *data;
    size_t len;
} asset;

/* The asset with this name; NULL if the build has none. */
const asset *assets_find(const char *name);

#endif
