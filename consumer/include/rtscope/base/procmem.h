/* The process's own memory: what is resident, for the figures the
 * commands print of themselves (the exporter's metrics, the dominators'
 * report), and how big arrays are given back. */
#ifndef RTSCOPE_BASE_PROCMEM_H
#define RTSCOPE_BASE_PROCMEM_H

/* Resident bytes now (/proc/self/statm), or -1 when unknown. */
long long rt_resident_bytes(void);

/* Big arrays mmapped, so that what is freed goes back to the system: for
 * a command that makes and frees arrays of tens of MB (Note [Big arrays
 * given back] in procmem.c). Call it before the first of them. */
void rt_mmap_big_arrays(void);

#endif
