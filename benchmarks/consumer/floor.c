/* floor FILE: the least work a heap summary of an eventlog needs, as a
 * yardstick for rtscope stats/hp/html (benchmarks/consumer/run).
 *
 * It maps the file, reads the header's event types, then frames every
 * event once in file order (no merge across capabilities, no error
 * verdict, no checks beyond staying inside the file) and, for each heap
 * sample named by a string (what -hi writes), hashes the label into an
 * open-addressing table and adds its residency. It prints the number of
 * events, heap samples, sample values and distinct bands, which the
 * benchmark compares with rtscope stats' to show both did the same work.
 *
 * Not a consumer: a malformed file is only reported, never explained.
 * And a plain loop, not a tuned one: on a log of events a summary only
 * counts (the flood log), rtscope's skip loop, which predicts event
 * lengths, is faster than this one. The floor's point is the label work
 * of a -hi log, which no tuning of the framing removes.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t *p, *end;

static int need(size_t n)
{
    return (size_t)(end - p) >= n;
}

static uint32_t be16(const uint8_t *b)
{
    return (uint32_t)b[0] << 8 | b[1];
}

static uint32_t be32(const uint8_t *b)
{
    return be16(b) << 16 | be16(b + 2);
}

static uint64_t be64(const uint8_t *b)
{
    return (uint64_t)be32(b) << 32 | be32(b + 4);
}

static const uint8_t *base;

static int bad(const char *what)
{
    fprintf(stderr, "floor: %s at byte %ld\n", what, (long)(p - base));
    return 1;
}

/* A word at a time (little-endian loads): labels are short (about 9
 * bytes for -hi). */
static uint64_t label_hash(const uint8_t *s, size_t len)
{
    const uint64_t k = 0x9e3779b97f4a7c15u;
    uint64_t h = len * k, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    if (i < len) { /* the tail, from a load that may run past it */
        if (s + i + 8 <= end) {
            memcpy(&w, s + i, 8);
            w &= ~(uint64_t)0 >> (64 - 8 * (len - i));
        } else {
            w = 0;
            for (size_t b = 0; b < len - i; b++)
                w |= (uint64_t)s[i + b] << (8 * b);
        }
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    return h | 1; /* 0 marks a free slot */
}

/* Open addressing, Fibonacci hashing on the top bits, doubled at half
 * full: keys are label hashes (never 0), values summed residencies. */
typedef struct tab {
    uint64_t *keys, *vals;
    size_t n;
    unsigned bits;
} tab;

static size_t tab_slot(const tab *t, uint64_t h)
{
    size_t mask = ((size_t)1 << t->bits) - 1;
    size_t j = (size_t)((h * 0x9e3779b97f4a7c15u) >> (64 - t->bits));
    while (t->keys[j] && t->keys[j] != h)
        j = (j + 1) & mask;
    return j;
}

static int tab_grow(tab *t)
{
    tab nt = {NULL, NULL, t->n, t->bits ? t->bits + 1 : 10};
    nt.keys = calloc((size_t)1 << nt.bits, sizeof(uint64_t));
    nt.vals = calloc((size_t)1 << nt.bits, sizeof(uint64_t));
    if (!nt.keys || !nt.vals) {
        free(nt.keys);
        free(nt.vals);
        return -1;
    }
    for (size_t i = 0; t->keys && i < ((size_t)1 << t->bits); i++)
        if (t->keys[i]) {
            size_t j = tab_slot(&nt, t->keys[i]);
            nt.keys[j] = t->keys[i];
            nt.vals[j] = t->vals[i];
        }
    free(t->keys);
    free(t->vals);
    *t = nt;
    return 0;
}

static uint64_t *tab_at(tab *t, uint64_t h)
{
    size_t j = tab_slot(t, h);
    if (!t->keys[j]) {
        if (2 * (t->n + 1) > ((size_t)1 << t->bits)) {
            if (tab_grow(t) != 0)
                return NULL;
            j = tab_slot(t, h);
        }
        t->keys[j] = h;
        t->n++;
    }
    return &t->vals[j];
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: floor FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 8) {
        perror(argv[1]);
        return 2;
    }
    base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
                fd, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    p = base;
    end = base + st.st_size;
    static int32_t size[65536]; /* -1: unknown type; 0xffff: variable */
    memset(size, 0xff, sizeof(size));
    if (be32(p) != 0x68647262 || be32(p + 4) != 0x68657462)
        return bad("no header");
    p += 8;
    while (need(4) && be32(p) == 0x65746200) { /* "etb\0" */
        if (!need(14))
            return bad("short event type");
        uint32_t t = be16(p + 4), sz = be16(p + 6), dl = be32(p + 8);
        p += 12;
        if (!need((size_t)dl + 4))
            return bad("short event type");
        p += dl;
        uint32_t el = be32(p);
        p += 4;
        if (!need((size_t)el + 4))
            return bad("short event type");
        p += el + 4; /* extra, "ete\0" */
        size[t] = (int32_t)sz;
    }
    if (!need(12) || be32(p) != 0x68657465 || be32(p + 4) != 0x68647265 ||
        be32(p + 8) != 0x64617462)
        return bad("no event types end");
    p += 12;

    uint64_t events = 0, samples = 0, values = 0, total = 0, max_total = 0;
    tab bands = {0};
    if (tab_grow(&bands) != 0)
        return 2;
    while (need(2)) {
        uint32_t t = be16(p);
        if (t == 0xffff)
            break;
        int32_t sz = size[t];
        if (sz < 0 || !need(12))
            return bad("unknown or cut event");
        uint32_t head = 10, plen = (uint32_t)sz;
        if (sz == 0xffff) {
            plen = be16(p + 10);
            head = 12;
        }
        if (!need((size_t)head + plen))
            return bad("cut event");
        const uint8_t *pl = p + head;
        events += t != 18;            /* block markers are not counted */
        if (t == 164 && plen >= 10) { /* HEAP_PROF_SAMPLE_STRING */
            const uint8_t *lab = pl + 9, *le = memchr(lab, 0, plen - 9);
            size_t len = le ? (size_t)(le - lab) : plen - 9;
            uint64_t h = label_hash(lab, len);
            uint64_t *v = tab_at(&bands, h);
            if (!v)
                return 2;
            uint64_t r = be64(pl + 1);
            *v += r;
            total += r;
            values++;
        } else if (t == 162) { /* HEAP_PROF_SAMPLE_BEGIN */
            samples++;
            total = 0;
        } else if (t == 165 && total > max_total) { /* SAMPLE_END */
            max_total = total;
        }
        p += head + plen;
    }
    printf("events: %llu\nheap samples: %llu\nsample values: %llu\n"
           "heap bands: %zu\nmax heap sample: %llu bytes\n",
           (unsigned long long)(events), (unsigned long long)samples,
           (unsigned long long)values, bands.n, (unsigned long long)max_total);
    return 0;
}
