/* rt_grow: see rtscope/base/grow.h. */
#include "rtscope/base/grow.h"

#include <stdint.h>
#include <stdlib.h>

int rt_grow(void **v, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : first;
    if (nc > SIZE_MAX / size)
        return -1;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}
