/* libFuzzer target: the reader's file path and stream path agree on any
 * bytes. The input is read three ways: as a file whose index of wanted
 * events fits (sparse), as a file whose index does not (dense), and through
 * a pipe (decoder -> el_merge). All three must give the same status, error
 * offset and message, event and per-type counts, truncation point, trailing
 * bytes and last timestamp, and the same events: in the same order unless
 * the pipe's bounded merge had to deliver some late (garbled timestamps),
 * then the same events in another order. Any difference aborts. Built by
 * `make -C consumer build/fuzz/fuzz-reader`; run by the
 * consumer-reader-fuzz case.
 *
 * The first byte picks the sink's filter: every event, or a few types. */
#define _GNU_SOURCE
#include "rtscope/eventlog.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct rec {
    uint64_t ts, offset;
    uint16_t type, cap;
    uint32_t plen;
} rec;

typedef struct reading {
    rec *v;
    size_t n, cap;
    uint64_t counts[65536];
    el_reader_result res;
    el_error err;
    el_status st;
} reading;

static int keep(void *ctx, const el_event *ev, const el_typetab *types)
{
    reading *r = ctx;
    (void)types;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->v = realloc(r->v, r->cap * sizeof(*r->v));
        if (!r->v)
            abort();
    }
    rec *x = &r->v[r->n++];
    memset(x, 0, sizeof(*x));
    x->ts = ev->ts;
    x->offset = ev->offset;
    x->type = ev->type;
    x->cap = ev->cap;
    x->plen = ev->payload_len;
    return 0;
}

static void read_spec(const char *spec, const uint8_t *wanted,
                      size_t index_budget, reading *r)
{
    el_reader_opts o;
    memset(&o, 0, sizeof(o));
    o.wanted = wanted;
    o.counts = r->counts;
    o.index_budget = index_budget;
    r->st = el_reader_run(spec, &o, keep, r, &r->res, &r->err);
}

static int by_offset(const void *x, const void *y)
{
    const rec *a = x, *b = y;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static void must(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz-reader: file and pipe differ: %s\n", what);
        abort();
    }
}

static void same(reading *a, reading *b)
{
    if (getenv("FUZZ_READER_DEBUG"))
        fprintf(stderr,
                "status %d/%d at %llu/%llu, events %llu/%llu, "
                "delivered %zu/%zu, late %llu/%llu\n",
                a->st, b->st, (unsigned long long)a->err.offset,
                (unsigned long long)b->err.offset,
                (unsigned long long)a->res.events,
                (unsigned long long)b->res.events, a->n, b->n,
                (unsigned long long)a->res.merge.late_events,
                (unsigned long long)b->res.merge.late_events);
    must(a->st == b->st, "status");
    if (a->st != EL_OK) {
        must(a->err.offset == b->err.offset, "error offset");
        must(strcmp(a->err.msg, b->err.msg) == 0, "error message");
    }
    must(a->res.events == b->res.events, "event count");
    must(a->res.truncated == b->res.truncated, "truncated");
    must(a->res.truncated_at == b->res.truncated_at, "truncation offset");
    must(a->res.trailing == b->res.trailing, "trailing bytes");
    must(a->res.last_ts == b->res.last_ts, "last timestamp");
    must(a->res.merge.late_events == 0, "late events in a file");
    must(memcmp(a->counts, b->counts, sizeof(a->counts)) == 0, "counts");
    must(a->n == b->n, "delivered events");
    if (b->res.merge.late_events) {
        qsort(a->v, a->n, sizeof(rec), by_offset);
        qsort(b->v, b->n, sizeof(rec), by_offset);
    }
    for (size_t i = 0; i < a->n; i++)
        must(memcmp(&a->v[i], &b->v[i], sizeof(rec)) == 0, "event order");
}

static reading file_sparse, file_dense, piped;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t few[65536];
    if (size == 0 || size > 60000) /* the pipe must hold it all */
        return 0;
    const uint8_t *wanted = NULL;
    if (data[0] & 1) {
        memset(few, 0, sizeof(few));
        few[EL_GC_START] = few[EL_USER_MARKER] = few[EL_HEAP_PROF_SAMPLE_STRING] =
            few[EL_BLOCK_MARKER] = 1;
        wanted = few;
    }
    data++;
    size--;
    int fd = memfd_create("fuzz-reader", 0);
    int p[2];
    if (fd < 0 || pipe(p) != 0)
        abort();
    if (write(fd, data, size) != (ssize_t)size ||
        write(p[1], data, size) != (ssize_t)size)
        abort();
    close(p[1]);
    char spec[64];
    snprintf(spec, sizeof(spec), "/proc/self/fd/%d", fd);
    memset(&file_sparse, 0, sizeof(file_sparse));
    memset(&file_dense, 0, sizeof(file_dense));
    memset(&piped, 0, sizeof(piped));
    read_spec(spec, wanted, 0, &file_sparse);
    read_spec(spec, wanted, 1, &file_dense);
    snprintf(spec, sizeof(spec), "/proc/self/fd/%d", p[0]);
    read_spec(spec, wanted, 0, &piped);
    close(fd);
    close(p[0]);
    same(&file_sparse, &file_dense);
    same(&file_sparse, &piped);
    free(file_sparse.v);
    free(file_dense.v);
    free(piped.v);
    return 0;
}
