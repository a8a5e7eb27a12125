/* Growing arrays: the one doubling every table of the consumer uses. */
#ifndef RTSCOPE_BASE_GROW_H
#define RTSCOPE_BASE_GROW_H

#include <stddef.h>

/* Room for one more element in *v (of *cap elements of size bytes,
 * n used): doubles from `first`. 0, or -1 when out of memory (*v kept). */
int rt_grow(void **v, size_t *cap, size_t n, size_t size, size_t first);

#endif
