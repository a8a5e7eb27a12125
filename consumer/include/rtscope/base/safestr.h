/* A program's strings made safe to print: snapshots and stubs are sent on
 * to others, and their strings (program name, info-table names, constructor
 * names) come from the program, not from rtscope. */
#ifndef RTSCOPE_BASE_SAFESTR_H
#define RTSCOPE_BASE_SAFESTR_H

#include <stddef.h>

/* A NUL-terminated copy of the n bytes at p in which every byte a terminal
 * would act on or that would cut the string short is written as text: the
 * C0 controls and NUL as \xNN, DEL as \x7f, and the C1 controls (U+0080 to
 * U+009F, which some terminals obey as escapes) as \uNNNN. A string without
 * them is copied as it is. NULL when out of memory. */
char *rt_str_escape_ctl(const void *p, size_t n);

/* The same in place, for a fixed-size field: each such byte becomes '?'
 * (a C1 control's two bytes become "??"). */
void rt_str_blank_ctl(char *s);

#endif
