/* debug-client: a small C client of the debug stub's protocol
 * (docs/debug-protocol.md), for the testsuite and the benchmarks.
 *
 *   debug-client SOCKET check HSFILE     functional check (see below)
 *   debug-client SOCKET pause-and-hang   pause, print "paused", sleep forever
 *   debug-client SOCKET fork-hold FILE   fork-mode pause (ghc-debug's PAUSE 1):
 *                                        the copy answers ROOTS and CLOSURES;
 *                                        print "forked", wait for FILE, read
 *                                        again, RESUME; then the program
 *                                        itself answers (PAUSE 0, RESUME)
 *   debug-client SOCKET fork-and-hang    fork-mode pause, print "forked",
 *                                        sleep forever
 *   debug-client SOCKET resume           resume if paused
 *   debug-client SOCKET latency N        N pause/resume pairs: median, p99
 *   debug-client SOCKET blocks-rate N    N BLOCKS requests while paused: bytes/s
 *   debug-client SOCKET describe         DESCRIBE_INFOS for the info pointers
 *                                        on stdin (hex, one a line), 16384 a
 *                                        request: tables described, with a
 *                                        module, seconds (the stub's
 *                                        provenance cost for a binary's tables)
 *   debug-client SOCKET fuzz SECONDS SEED
 *                                        random, truncated and malformed
 *                                        frames and random pointers
 *
 * Exit 0 when every expectation held, 1 otherwise (with a message).
 * Build: cc -O2 -Wall -o debug-client debug-client.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum {
    CMD_VERSION = 1, CMD_PAUSE = 2, CMD_RESUME = 3, CMD_ROOTS = 4,
    CMD_CLOSURES = 5, CMD_INFO_TABLES = 6, CMD_STACK_BITMAP = 7,
    CMD_POLL = 8, CMD_SAVED_OBJECTS = 9, CMD_CON_DESCR = 11,
    CMD_SOURCE_INFO = 12, CMD_BLOCKS = 14, CMD_BLOCK = 15,
    CMD_FUN_BITMAP = 16, CMD_SRT = 17, CMD_PAUSE_AFTER_GC = 64,
    CMD_STAY_PAUSED = 65,
};
enum { OK = 0, CONT = 1, BAD_COMMAND = 0x100, ALREADY_PAUSED = 0x101,
       NOT_PAUSED = 0x102 };

static const char *sock_path;

static void
die (const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "debug-client: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static double
now (void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
connect_stub (void)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
    for (int i = 0; i < 200; i++) {
        if (connect(fd, (struct sockaddr *) &a, sizeof(a)) == 0) return fd;
        usleep(50000);
    }
    die("cannot connect to %s: %s", sock_path, strerror(errno));
    return -1;
}

/* ---- requests ---- */

typedef struct { unsigned char *p; size_t len, cap; } Buf;

static void
buf_put (Buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}
static void put8 (Buf *b, uint8_t x) { buf_put(b, &x, 1); }
static void put16 (Buf *b, uint16_t x) { x = htons(x); buf_put(b, &x, 2); }
static void put32 (Buf *b, uint32_t x) { x = htonl(x); buf_put(b, &x, 4); }
static void putptr (Buf *b, uint64_t x) { buf_put(b, &x, 8); }

static int
write_all (int fd, const void *p, size_t n)
{
    while (n > 0) {
        ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        p = (const char *) p + r;
        n -= r;
    }
    return 0;
}

static int
send_req (int fd, uint32_t cmd, Buf *body)
{
    Buf f = { 0 };
    put32(&f, 4 + (body ? body->len : 0));
    put32(&f, cmd);
    if (body) buf_put(&f, body->p, body->len);
    int r = write_all(fd, f.p, f.len);
    free(f.p);
    return r;
}

static int
read_full (int fd, void *p, size_t n, int timeout_ms)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, timeout_ms);
        if (r == 0) return -2;
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        ssize_t k = read(fd, (char *) p + got, n - got);
        if (k <= 0) { if (k < 0 && errno == EINTR) continue; return -1; }
        got += k;
    }
    return 0;
}

/* Read a whole response: payload of all frames into *out; returns the
 * final status, -1 on a closed connection, -2 on timeout. */
static int
read_resp (int fd, Buf *out, int timeout_ms)
{
    out->len = 0;
    for (;;) {
        unsigned char h[6];
        int r = read_full(fd, h, 6, timeout_ms);
        if (r) return r;
        uint32_t len; uint16_t st;
        memcpy(&len, h, 4); memcpy(&st, h + 4, 2);
        len = ntohl(len); st = ntohs(st);
        if (out->cap < out->len + len) {
            out->cap = out->len + len + 1;
            out->p = realloc(out->p, out->cap);
        }
        r = read_full(fd, out->p + out->len, len, timeout_ms);
        if (r) return r;
        out->len += len;
        if (st != CONT) return st;
    }
}

static int
request (int fd, uint32_t cmd, Buf *body, Buf *out)
{
    if (send_req(fd, cmd, body)) die("send failed");
    int st = read_resp(fd, out, 30000);
    if (st < 0) die("no reply to command %u (%s)", cmd, st == -2 ? "timeout" : "closed");
    return st;
}

static uint32_t rd32 (const unsigned char *p) { uint32_t x; memcpy(&x, p, 4); return ntohl(x); }
static uint16_t rd16 (const unsigned char *p) { uint16_t x; memcpy(&x, p, 2); return ntohs(x); }
static uint64_t rdptr (const unsigned char *p) { uint64_t x; memcpy(&x, p, 8); return x; }

static int
one_ptr_req (int fd, uint32_t cmd, uint64_t p, int counted, Buf *out)
{
    Buf b = { 0 };
    if (counted) put16(&b, 1);
    putptr(&b, p);
    int st = request(fd, cmd, &b, out);
    free(b.p);
    return st;
}

/* ---- check ---- */

/* "pkg:Mod.Sub.Name" -> "pkg:Mod.Sub:Name", as ghc-debug shows a
 * constructor: the name starts after the last '.' that follows a module
 * component (operators like :. keep their dots). */
static const char *
decode_con_desc (const char *s, uint32_t len)
{
    static char buf[1024];
    snprintf(buf, sizeof(buf), "%.*s", (int) len, s);
    char *colon = strchr(buf, ':');
    if (!colon) return buf;
    char *p = colon + 1, *split = NULL;
    // walk module components: an upper-case letter, then up to a '.'
    while (*p >= 'A' && *p <= 'Z') {
        char *dot = strchr(p, '.');
        if (!dot || dot[1] == '\0') break;
        split = dot;
        p = dot + 1;
    }
    if (split) *split = ':';
    return buf;
}

typedef struct { uint64_t start, len; uint16_t flags; } Block;

static int
cmp_block (const void *a, const void *b)
{
    uint64_t x = ((const Block *) a)->start, y = ((const Block *) b)->start;
    return x < y ? -1 : x > y;
}

static Block *
parse_blocks (Buf *out, size_t *n)
{
    size_t cap = 1024, k = 0, off = 0;
    Block *bs = malloc(cap * sizeof(Block));
    while (off < out->len) {
        if (off + 14 > out->len) die("BLOCKS: truncated block header");
        if (k == cap) bs = realloc(bs, (cap *= 2) * sizeof(Block));
        memcpy(&bs[k].flags, out->p + off, 2);
        bs[k].start = rdptr(out->p + off + 2);
        bs[k].len = rd32(out->p + off + 10);
        off += 14 + bs[k].len;
        if (off > out->len) die("BLOCKS: truncated block");
        k++;
    }
    *n = k;
    return bs;
}

static const Block *
find_block (const Block *bs, size_t n, uint64_t p)
{
    for (size_t i = 0; i < n; i++) {
        if (p >= bs[i].start && p < bs[i].start + bs[i].len) return &bs[i];
    }
    return NULL;
}

static int
cmd_check (const char *hsfile)
{
    int fd = connect_stub();
    Buf out = { 0 }, b = { 0 };

    // the GHC whose heap it is: 9.0.2 or 9.6.6
    if (request(fd, CMD_VERSION, NULL, &out) != OK || out.len < 4 ||
        (rd32(out.p) != 902 && rd32(out.p) != 906)) {
        die("VERSION: expected 902 or 906");
    }
    printf("version: %u\n", rd32(out.p));

    if (request(fd, CMD_ROOTS, NULL, &out) != NOT_PAUSED) die("ROOTS before PAUSE: expected NOT_PAUSED");
    b.len = 0; put8(&b, 0);
    if (request(fd, CMD_PAUSE, &b, &out) != OK) die("PAUSE failed");
    if (request(fd, CMD_PAUSE, &b, &out) != ALREADY_PAUSED) die("second PAUSE: expected ALREADY_PAUSED");

    if (request(fd, CMD_ROOTS, NULL, &out) != OK) die("ROOTS failed");
    size_t nroots = out.len / 8;
    if (nroots == 0) die("ROOTS: empty");
    uint64_t *roots = malloc(out.len);
    memcpy(roots, out.p, out.len);
    printf("roots: non-empty\n");

    // The program saves its object soon after it starts: wait for it.
    for (int tries = 0; ; tries++) {
        if (request(fd, CMD_SAVED_OBJECTS, NULL, &out) != OK) die("SAVED_OBJECTS failed");
        if (out.len >= 8) break;
        if (tries == 100) die("SAVED_OBJECTS: none after 10s");
        if (request(fd, CMD_RESUME, NULL, &out) != OK) die("RESUME failed");
        usleep(100000);
        if (request(fd, CMD_PAUSE, &b, &out) != OK) die("PAUSE failed");
    }
    uint64_t saved = rdptr(out.p);
    if (request(fd, CMD_ROOTS, NULL, &out) != OK) die("ROOTS failed");
    nroots = out.len / 8;
    roots = realloc(roots, out.len);
    memcpy(roots, out.p, out.len);

    if (one_ptr_req(fd, CMD_CLOSURES, saved, 1, &out) != OK) die("CLOSURES(saved) failed");
    if (out.len < 4 + 8 || rd32(out.p) + 4 != out.len) die("CLOSURES: bad length");
    uint64_t info = rdptr(out.p + 4);
    printf("saved closure: %u bytes\n", rd32(out.p));

    if (one_ptr_req(fd, CMD_INFO_TABLES, info, 1, &out) != OK || out.len < 4 + 16) die("INFO_TABLES failed");
    uint32_t type; memcpy(&type, out.p + 4 + 8, 4);
    if (type < 1 || type > 7) die("saved object is not a constructor (type %u)", type);

    if (one_ptr_req(fd, CMD_CON_DESCR, info, 0, &out) != OK || out.len < 4) die("CON_DESCR failed");
    printf("constructor: %s\n", decode_con_desc((const char *) out.p + 4, rd32(out.p)));

    if (one_ptr_req(fd, CMD_SOURCE_INFO, info, 0, &out) != OK || out.len < 4) die("SOURCE_INFO failed");
    uint32_t nf = rd32(out.p);
    if (nf == 0) {
        printf("source info: none\n");
    } else if (nf == 6) {
        size_t off = 4;
        char fields[6][512];
        for (int i = 0; i < 6; i++) {
            uint32_t l = rd32(out.p + off);
            snprintf(fields[i], sizeof(fields[i]), "%.*s", (int) l, (const char *) out.p + off + 4);
            off += 4 + l;
        }
        printf("source info: %s %s %s %s\n", fields[0], fields[2], fields[4], fields[5]);
        if (strstr(fields[5], hsfile) == NULL) die("source info does not point into %s", hsfile);
    } else {
        die("SOURCE_INFO: %u fields", nf);
    }

    if (one_ptr_req(fd, CMD_SRT, info, 1, &out) != OK || out.len != 8 || rdptr(out.p) != 0) {
        die("SRT of a constructor: expected none");
    }

    // The stack of a thread: TSO -> stackobj (word 3) -> sp (word 2).
    int stacks = 0;
    for (size_t i = 0; i < nroots && stacks == 0; i++) {
        if (one_ptr_req(fd, CMD_CLOSURES, roots[i] & ~7ull, 1, &out) != OK) continue;
        if (out.len < 4 + 4 * 8) continue;
        uint64_t tinfo = rdptr(out.p + 4);
        Buf o2 = { 0 };
        if (one_ptr_req(fd, CMD_INFO_TABLES, tinfo, 1, &o2) != OK) { free(o2.p); continue; }
        uint32_t t; memcpy(&t, o2.p + 4 + 8, 4);
        free(o2.p);
        if (t != 52 /* TSO */) continue;
        uint64_t stack = rdptr(out.p + 4 + 3 * 8);
        if (one_ptr_req(fd, CMD_CLOSURES, stack, 1, &out) != OK) die("CLOSURES(stack) failed");
        uint64_t sp = rdptr(out.p + 4 + 2 * 8);
        b.len = 0; putptr(&b, sp); put32(&b, 0);
        int st = request(fd, CMD_STACK_BITMAP, &b, &out);
        if (st != OK && st != 0x104) die("STACK_BITMAP of the top frame failed (%x)", st);
        stacks++;
    }
    if (stacks == 0) die("no thread among the roots");
    printf("stack bitmap: ok\n");

    if (request(fd, CMD_BLOCKS, NULL, &out) != OK) die("BLOCKS failed");
    size_t nb;
    Block *bs = parse_blocks(&out, &nb);
    qsort(bs, nb, sizeof(Block), cmp_block);
    uint64_t bytes = 0;
    for (size_t i = 0; i < nb; i++) {
        if (bs[i].len == 0 || bs[i].len % 4096 || bs[i].start % 4096) die("block %lx: not whole blocks", (unsigned long) bs[i].start);
        if (i > 0 && bs[i].start < bs[i-1].start + bs[i-1].len) die("blocks overlap");
        bytes += bs[i].len;
    }
    if (!find_block(bs, nb, saved)) die("saved object not in any block");
    for (size_t i = 0; i < nroots; i++) {
        // every heap-allocated root lies in a block the stub reported
        Buf o3 = { 0 };
        int st = one_ptr_req(fd, CMD_BLOCK, roots[i] & ~7ull, 0, &o3);
        if (st == OK) {
            const Block *f = find_block(bs, nb, roots[i] & ~7ull);
            if (!f || f->start != rdptr(o3.p + 2)) die("BLOCK disagrees with BLOCKS for root %lx", (unsigned long) roots[i]);
        }
        free(o3.p);
    }
    printf("blocks: all in the heap\n");
    fprintf(stderr, "blocks: %zu, %llu bytes\n", nb, (unsigned long long) bytes);

    // Addresses the stub cannot verify get an error, not a read.
    uint64_t bad[] = { 0, 8, 0x1000, 0xdeadbeef0, (uint64_t) -8, saved + 4096 * 300, info + 1 };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (one_ptr_req(fd, CMD_CLOSURES, bad[i], 1, &out) != BAD_COMMAND) {
            if (i != 5) die("CLOSURES(%lx): expected an error", (unsigned long) bad[i]);
        }
        if (one_ptr_req(fd, CMD_CON_DESCR, bad[i], 0, &out) != BAD_COMMAND) die("CON_DESCR(%lx): expected an error", (unsigned long) bad[i]);
    }
    if (request(fd, 999, NULL, &out) != BAD_COMMAND) die("unknown command: expected an error");
    printf("bad addresses: refused\n");

    if (request(fd, CMD_RESUME, NULL, &out) != OK) die("RESUME failed");
    if (request(fd, CMD_RESUME, NULL, &out) != NOT_PAUSED) die("second RESUME: expected NOT_PAUSED");

    // Pause right after a major GC (triggered by the stub): the nursery is empty.
    b.len = 0; put8(&b, 1);
    double t0 = now();
    if (request(fd, CMD_PAUSE_AFTER_GC, &b, &out) != OK) die("PAUSE_AFTER_GC failed");
    if (request(fd, CMD_ROOTS, NULL, &out) != OK || out.len == 0) die("ROOTS after GC failed");
    if (request(fd, CMD_SAVED_OBJECTS, NULL, &out) != OK || out.len < 8) die("saved object lost");
    uint64_t saved2 = rdptr(out.p);
    if (one_ptr_req(fd, CMD_CLOSURES, saved2, 1, &out) != OK) die("CLOSURES(saved) after GC failed");
    if (one_ptr_req(fd, CMD_CON_DESCR, rdptr(out.p + 4), 0, &out) != OK) die("CON_DESCR after GC failed");
    if (request(fd, CMD_RESUME, NULL, &out) != OK) die("RESUME after GC failed");
    printf("pause after GC: ok\n");
    fprintf(stderr, "pause after GC took %.1f ms\n", (now() - t0) * 1e3);
    close(fd);
    return 0;
}

static int
cmd_pause_and_hang (void)
{
    int fd = connect_stub();
    Buf out = { 0 }, b = { 0 };
    put8(&b, 0);
    if (request(fd, CMD_PAUSE, &b, &out) != OK) die("PAUSE failed");
    printf("paused\n");
    fflush(stdout);
    for (;;) pause();
    return 0;
}

/* ROOTS, then CLOSURES of the first root: the heap of a paused program. */
static void
read_some_heap (int fd, const char *when)
{
    Buf out = { 0 }, b = { 0 };
    if (request(fd, CMD_ROOTS, NULL, &out) != OK || out.len < 8)
        die("%s: ROOTS failed or empty", when);
    uint64_t root = rdptr(out.p);
    put16(&b, 1);
    putptr(&b, root & ~(uint64_t) 7);
    if (request(fd, CMD_CLOSURES, &b, &out) != OK || out.len < 4 + 8)
        die("%s: CLOSURES of root %#llx failed", when, (unsigned long long) root);
    free(b.p);
    free(out.p);
}

static int
cmd_fork_hold (const char *file, int hang)
{
    int fd = connect_stub();
    Buf out = { 0 }, b = { 0 };
    put8(&b, 1);
    int st = request(fd, CMD_PAUSE, &b, &out);
    if (st != OK) die("PAUSE (fork mode) answered %#x: %.*s", st, (int) out.len, out.p);
    read_some_heap(fd, "forked copy");
    printf("forked\n");
    fflush(stdout);
    if (hang) for (;;) pause();
    for (int i = 0; access(file, F_OK) != 0; i++) {
        if (i > 600) die("no %s after 60 s", file);
        usleep(100000);
    }
    read_some_heap(fd, "forked copy, later");
    if (request(fd, CMD_RESUME, NULL, &out) != OK) die("RESUME of the copy failed");
    // the copy is gone: the program answers on the same connection, and
    // was not paused
    if (request(fd, CMD_RESUME, NULL, &out) != NOT_PAUSED)
        die("after the copy's RESUME the program is paused");
    b.len = 0;
    put8(&b, 0);
    if (request(fd, CMD_PAUSE, &b, &out) != OK) die("PAUSE of the program failed");
    read_some_heap(fd, "program");
    if (request(fd, CMD_RESUME, NULL, &out) != OK) die("RESUME of the program failed");
    printf("done\n");
    close(fd);
    return 0;
}

static int
cmd_resume (void)
{
    int fd = connect_stub();
    Buf out = { 0 };
    {
        Buf b = { 0 };
        put8(&b, 0);
        request(fd, CMD_STAY_PAUSED, &b, &out);
    }
    int st = request(fd, CMD_RESUME, NULL, &out);
    printf("resume: %s\n", st == OK ? "resumed" : "was running");
    close(fd);
    return 0;
}

static int
cmd_describe (void)
{
    int fd = connect_stub();
    size_t n = 0, cap = 1024, ok = 0, named = 0;
    uint64_t *v = malloc(cap * sizeof(*v));
    char line[128];
    while (fgets(line, sizeof(line), stdin)) {
        if (n == cap) v = realloc(v, (cap *= 2) * sizeof(*v));
        v[n++] = strtoull(line, NULL, 16);
    }
    Buf out = { 0 };
    double t0 = now();
    for (size_t at = 0; at < n; at += 16384) {
        size_t k = n - at < 16384 ? n - at : 16384;
        Buf b = { 0 };
        put32(&b, (uint32_t) k);
        for (size_t i = 0; i < k; i++) putptr(&b, v[at + i]);
        if (request(fd, 68, &b, &out) != OK) die("DESCRIBE_INFOS failed");
        free(b.p);
        // count the described tables and those with a module (field 5)
        size_t off = 0;
        for (size_t i = 0; i < k; i++) {
            if (off >= out.len) die("DESCRIBE_INFOS: short reply");
            if (!out.p[off++]) { off += 2 + rd16(out.p + off); continue; }
            ok++;
            off += 20;
            off += 4 + rd32(out.p + off);           // constructor
            uint32_t nf = rd32(out.p + off);
            off += 4;
            for (uint32_t f = 0; f < nf; f++) {
                uint32_t l = rd32(out.p + off);
                if (f == 4 && l > 0) named++;
                off += 4 + l;
            }
        }
    }
    printf("describe: %zu info pointers, %zu tables, %zu with a module, %.3f s\n",
           n, ok, named, now() - t0);
    free(v);
    close(fd);
    return 0;
}

static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static int
cmd_latency (int n)
{
    int fd = connect_stub();
    Buf out = { 0 }, b = { 0 };
    put8(&b, 0);
    double *t = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        double t0 = now();
        if (request(fd, CMD_PAUSE, &b, &out) != OK) die("PAUSE failed");
        t[i] = now() - t0;
        if (request(fd, CMD_RESUME, NULL, &out) != OK) die("RESUME failed");
        usleep(2000);
    }
    qsort(t, n, sizeof(double), cmp_double);
    printf("pause latency: median %.1f us, p99 %.1f us, max %.1f us (%d pauses)\n",
           t[n / 2] * 1e6, t[(int) (n * 0.99)] * 1e6, t[n - 1] * 1e6, n);
    close(fd);
    return 0;
}

static int
cmd_blocks_rate (int n)
{
    int fd = connect_stub();
    Buf out = { 0 }, b = { 0 };
    put8(&b, 0);
    if (request(fd, CMD_PAUSE, &b, &out) != OK) die("PAUSE failed");
    double t0 = now();
    uint64_t bytes = 0;
    for (int i = 0; i < n; i++) {
        if (request(fd, CMD_BLOCKS, NULL, &out) != OK) die("BLOCKS failed");
        bytes += out.len;
    }
    double dt = now() - t0;
    request(fd, CMD_RESUME, NULL, &out);
    printf("blocks: %.1f MB per request, %.2f GB/s\n", bytes / (double) n / 1e6, bytes / dt / 1e9);
    close(fd);
    return 0;
}

/* ---- fuzz ---- */

static uint64_t rng;
static uint64_t
rnd (void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static uint64_t known[4096];
static size_t nknown;

static void
learn (Buf *out, size_t stride, size_t off)
{
    for (size_t i = off; i + 8 <= out->len && nknown < 4096; i += stride) {
        uint64_t p = rdptr(out->p + i);
        if (p > 0x10000) known[nknown++] = p;
    }
}

static uint64_t
fuzz_ptr (void)
{
    switch (rnd() % 6) {
    case 0: return rnd();
    case 1: return rnd() & 0xffffffffff;
    case 2: if (nknown) return known[rnd() % nknown]; return rnd();
    case 3: if (nknown) return known[rnd() % nknown] + (rnd() % 4096) - 2048; return 0;
    case 4: if (nknown) return (known[rnd() % nknown] & ~0xfffull) + (rnd() % 65536) * 8; return 8;
    default: return rnd() % 4096;
    }
}

static int
cmd_fuzz (double seconds, uint64_t seed)
{
    rng = seed * 2654435761u + 1;
    double end = now() + seconds;
    long frames = 0, errors = 0, replies = 0, conns = 0;
    Buf out = { 0 };
    while (now() < end) {
        int fd = connect_stub();
        conns++;
        int n = 1 + rnd() % 40;

        if (rnd() % 10 < 7) {       // mostly work on a paused heap
            Buf b = { 0 }; put8(&b, 0);
            send_req(fd, CMD_PAUSE, &b);
            free(b.p);
            if (read_resp(fd, &out, 5000) < 0) goto next;
            if (request(fd, CMD_ROOTS, NULL, &out) == OK) learn(&out, 8, 0);
            if (request(fd, CMD_SAVED_OBJECTS, NULL, &out) == OK) learn(&out, 8, 0);
        }
        for (int i = 0; i < n && now() < end; i++) {
            Buf b = { 0 };
            uint32_t cmd;
            int kind = rnd() % 10;
            if (kind < 6) {
                static const uint32_t cmds[] = { 1, 4, 5, 6, 7, 9, 11, 12, 14, 15, 16, 17, 10, 13, 18, 19, 20, 21, 67, 68, 67, 69, 3, 2, 65, 8, 64, 66 };
                cmd = cmds[rnd() % (sizeof(cmds) / sizeof(cmds[0]) - (rnd() % 8 ? 4 : 0))];
                int np = rnd() % 3;
                switch (cmd) {
                case 5: case 6: case 17:
                    put16(&b, rnd() % 4 ? (uint16_t) (np + 1) : (uint16_t) rnd());
                    for (int k = 0; k <= np; k++) putptr(&b, fuzz_ptr());
                    break;
                case 67: case 68:       // rtscope's batch commands: a 32-bit count
                    put32(&b, rnd() % 4 ? (uint32_t) (np + 1) : (uint32_t) rnd());
                    for (int k = 0; k <= np; k++) putptr(&b, fuzz_ptr());
                    break;
                case 7: putptr(&b, fuzz_ptr()); put32(&b, rnd() % 4 ? (rnd() % 64) * 8 : (uint32_t) rnd()); break;
                case 16: putptr(&b, fuzz_ptr()); put16(&b, rnd() % 4 ? rnd() % 8 : (uint16_t) rnd()); break;
                case 11: case 12: case 15: case 18: case 19: case 20: putptr(&b, fuzz_ptr()); break;
                case 2: case 65: put8(&b, rnd() % 3 == 0); break;
                case 64: put8(&b, rnd() % 2); break;
                default: break;
                }
                if (rnd() % 5 == 0 && b.len > 0) b.len = rnd() % b.len;   // truncated body
            } else if (kind < 8) {
                cmd = rnd() % 3 ? (uint32_t) (rnd() % 128) : (uint32_t) rnd();
                int len = rnd() % 64;
                for (int k = 0; k < len; k++) put8(&b, rnd());
            } else if (kind < 9) {
                // a frame whose length lies, then hang up
                Buf f = { 0 };
                put32(&f, rnd() % 2 ? (uint32_t) rnd() : 4 + rnd() % 100);
                int len = rnd() % 16;
                for (int k = 0; k < len; k++) put8(&f, rnd());
                write_all(fd, f.p, f.len);
                free(f.p);
                frames++;
                goto next;
            } else {
                // a frame shorter than a command
                Buf f = { 0 };
                uint32_t l = rnd() % 4;
                put32(&f, l);
                for (uint32_t k = 0; k < l; k++) put8(&f, rnd());
                write_all(fd, f.p, f.len);
                free(f.p);
                frames++;
                int st = read_resp(fd, &out, 5000);
                if (st < 0) goto next;
                replies++;
                if (st == BAD_COMMAND) errors++;
                continue;
            }
            if (send_req(fd, cmd, &b)) { free(b.p); goto next; }
            free(b.p);
            frames++;
            int st = read_resp(fd, &out, 2000);
            if (st < 0) goto next;      // a POLL or a pause after GC: hang up
            replies++;
            if (st >= 0x100) errors++;
            if (st == OK && (cmd == 4 || cmd == 9)) learn(&out, 8, 0);
            if (st == OK && cmd == 5) learn(&out, 8, 4);
        }
    next:
        close(fd);
    }
    // Leave the program running.
    cmd_resume();
    printf("fuzz: %ld connections, %ld frames, %ld replies, %ld errors\n", conns, frames, replies, errors);
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc < 3) die("usage: debug-client SOCKET COMMAND ...");
    sock_path = argv[1];
    const char *cmd = argv[2];
    if (!strcmp(cmd, "check") && argc == 4) return cmd_check(argv[3]);
    if (!strcmp(cmd, "pause-and-hang")) return cmd_pause_and_hang();
    if (!strcmp(cmd, "resume")) return cmd_resume();
    if (!strcmp(cmd, "fork-hold") && argc == 4) return cmd_fork_hold(argv[3], 0);
    if (!strcmp(cmd, "fork-and-hang")) return cmd_fork_hold(NULL, 1);
    if (!strcmp(cmd, "latency") && argc == 4) return cmd_latency(atoi(argv[3]));
    if (!strcmp(cmd, "blocks-rate") && argc == 4) return cmd_blocks_rate(atoi(argv[3]));
    if (!strcmp(cmd, "describe")) return cmd_describe();
    if (!strcmp(cmd, "fuzz") && argc == 5) return cmd_fuzz(atof(argv[3]), strtoull(argv[4], NULL, 10));
    die("unknown command %s", cmd);
    return 2;
}
