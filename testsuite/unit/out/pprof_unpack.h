/* The unit tests' reader of what rtscope pprof writes: gunzip buf (len
 * bytes, freed) and unpack the profile (test_pprof.c). */
#ifndef RTSCOPE_TEST_PPROF_UNPACK_H
#define RTSCOPE_TEST_PPROF_UNPACK_H

#include "pprof.pb-c.h"

#include <stddef.h>

RtscopePprof__Profile *pprof_unpack_gzipped(char *buf, size_t len);

#endif
