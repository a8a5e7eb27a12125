/* What a path is, in words, for errors that say why it is not what was
 * asked for ("is a directory, not a socket"). */
#ifndef RTSCOPE_BASE_FILEKIND_H
#define RTSCOPE_BASE_FILEKIND_H

#include <sys/stat.h>

/* "a directory", "a FIFO (named pipe)", "a regular file", ... for the type
 * bits of mode. */
const char *rt_file_kind(mode_t mode);

#endif
