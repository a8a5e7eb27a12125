/* Loading a profile for the report commands (html, diff): an eventlog
 * through the reader, or a .hp file, with a progress line on a terminal. */
#ifndef RTSCOPE_PROFILE_LOAD_H
#define RTSCOPE_PROFILE_LOAD_H

#include "cli.h"
#include "rtscope/model/profile.h"

/* Is `input` to be read as a .hp file (-p, or a name ending in ".hp")? */
int profile_load_is_hp(const char *input, int force_hp);

/* Read `input` into `p` and finish it. Shows progress on stderr when it is
 * a terminal and the input is large (or of unknown size). Returns a CLI
 * exit code (errors reported). */
int profile_load(profile *p, const char *input, int is_hp,
                 const cli_input_opts *io);

/* Another sink fed the same reading (an eventlog, not a .hp file): the
 * events of the types `wanted` marks, after the profile has had them. */
typedef struct profile_load_also {
    el_sink_fn sink;
    void *ctx;
    void (*wanted)(uint8_t *wanted); /* marks wanted[65536] */
} profile_load_also;

/* profile_load, with `also` (NULL: none) given what it wants of the same
 * events, so that one reading of a pipe or socket serves both. */
int profile_load_with(profile *p, const char *input, int is_hp,
                      const cli_input_opts *io, const profile_load_also *also);

#endif
