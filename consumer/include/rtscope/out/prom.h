/* Prometheus text exposition (format 0.0.4) of followed programs' metrics
 * models. Pure rendering: no I/O beyond the FILE given, and nothing of how
 * the models are fed (rtscope export's targets describe themselves to it as
 * prom_source views). */
#ifndef RTSCOPE_OUT_PROM_H
#define RTSCOPE_OUT_PROM_H

#include "rtscope/model/metrics.h"

#include <stdint.h>
#include <stdio.h>

/* The content type of the exposition. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One followed program as the exposition sees it: the address it is
 * followed at and its current or last run. */
typedef struct prom_source {
    const char *spec; /* the address as the user wrote it: label target= */
    const metrics *m; /* the current or last run's model, or NULL */
    int ended;        /* m is of a run that has ended (ghc_up 0) */
    int receiving;    /* a run's eventlog is being received now */
    uint64_t connects, failures, runs, read_bytes;
} prom_source;

/* Write every program family for the runs of `sources` (each {program,
 * pid} once: see Note [Series and cardinality] in prom.c), then the
 * per-source rtscope_target_* families. */
void prom_write_sources(FILE *f, const prom_source *sources, size_t n);

/* One family header: "# HELP name help\n# TYPE name type\n". */
void prom_write_family(FILE *f, const char *name, const char *type,
                       const char *help);
/* A label value, escaped (\\, \", \n). */
void prom_write_label_value(FILE *f, const char *s);

#endif
