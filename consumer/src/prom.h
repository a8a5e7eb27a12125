/* Prometheus text exposition (format 0.0.4) of the followed programs'
 * metrics models. Pure rendering: no I/O beyond the FILE given. */
#ifndef RTSCOPE_PROM_H
#define RTSCOPE_PROM_H

#include "target.h"

#include <stdio.h>

/* The content type of the exposition. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Write every program family for the runs of `targets` (current and ended
 * runs still kept), then the per-target rtscope_target_* families. */
void prom_write_targets(FILE *f, target *const *targets, size_t n);

/* One family header: "# HELP name help\n# TYPE name type\n". */
void prom_write_family(FILE *f, const char *name, const char *type,
                       const char *help);
/* A label value, escaped (\\, \", \n). */
void prom_write_label_value(FILE *f, const char *s);

#endif
