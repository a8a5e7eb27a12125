/* Band names: the one module that names heap-profile bands for every sink
 * (hp, html/json/diff through profile.c, live and export through
 * metrics.c), from what the stream says: IPE entries name -hi bands
 * (ipe.h, docs/hi.md "Band names"), HEAP_PROF_COST_CENTRE entries name
 * cost-centre stacks (hp's convention: labels joined by '/', innermost
 * first, MAIN for the empty stack, ccN for a cost centre never described).
 */
#ifndef RTSCOPE_BANDS_H
#define RTSCOPE_BANDS_H

#include "rtscope/eventlog.h"
#include "rtscope/model/ipe.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bands bands;

bands *bands_new(void);
void bands_free(bands *b);

/* Take what names bands from a decoded event: EL_HEAP_PROF_BEGIN (the
 * breakdown), EL_IPE, EL_HEAP_PROF_COST_CENTRE; other events are ignored.
 * Returns 0, or -1 when out of memory. */
int bands_take(bands *b, const el_event *ev);

/* The breakdown of the profile (EL_BREAKDOWN_*), 0 before its BEGIN. */
uint32_t bands_breakdown(const bands *b);
/* -hi: the IPE entry a sample label (an info-table address) names, or
 * NULL (another breakdown, not an address, or no entry). */
const ipe_entry *bands_ipe(const bands *b, el_str label);
const ipe_table *bands_ipe_table(const bands *b);

/* The band name of a SAMPLE_STRING label: for -hi the IPE name of the
 * address, else the label itself. malloc'd, NULL when out of memory. */
char *bands_label_name(const bands *b, el_str label);

/* The band name of a cost-centre stack sample
 * (EL_HEAP_PROF_SAMPLE_COST_CENTRE) into *buf (grown as needed; *cap its
 * size), its length in *len, not NUL-terminated. Returns 0 or -1. */
int bands_ccs_name(const bands *b, const el_event *ev, char **buf, size_t *cap,
                   size_t *len);

/* The label of a cost centre (HEAP_PROF_COST_CENTRE), or NULL when the
 * stream never described it (its band name says "ccN"). */
const char *bands_cc_label(const bands *b, uint32_t id);

#endif
