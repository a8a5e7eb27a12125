/* snapseed DIR: seeds for fuzz_snapshot, from the synthetic heap of
 * testsuite/unit/debug/snap_fixture.c: the snapshot file (mode byte 0) and
 * its sections uncompressed (mode byte 1; format in fuzz_snapshot.c). */
#include "rtscope/debug/debug_snap.h"
#include "snap_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static int write_seed(const char *dir, const char *name, const dbg_buf *b)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fwrite(b->p, 1, b->len, f);
    return fclose(f);
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t x = 0;
    for (int i = 0; i < n; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: snapseed DIR\n");
        return 2;
    }
    dbg_snap s;
    dbg_snap_init(&s);
    char path[4096];
    snprintf(path, sizeof(path), "%s/.fixture.rsnap", argv[1]);
    uint64_t bytes;
    if (snapfix_build(&s) != 0 || dbg_snap_write(&s, path, 3, &bytes) != 0) {
        fprintf(stderr, "snapseed: %s\n", s.err);
        return 1;
    }
    dbg_snap_free(&s);
    FILE *f = fopen(path, "rb");
    unsigned char *p = malloc(bytes);
    if (!f || !p || fread(p, 1, bytes, f) != bytes)
        return 1;
    fclose(f);
    remove(path);
    dbg_buf b = {0};
    dbg_buf_put8(&b, 0);
    dbg_buf_put(&b, p, bytes);
    if (write_seed(argv[1], "file", &b) != 0)
        return 1;
    /* mode 1: (u8 id, u16le length, raw bytes) per section */
    b.len = 0;
    dbg_buf_put8(&b, 1);
    unsigned nsect = (unsigned)le(p + 18, 2);
    for (unsigned i = 0; i < nsect; i++) {
        const unsigned char *e = p + 64 + 40 * i;
        uint64_t off = le(e + 8, 8), clen = le(e + 16, 8), raw = le(e + 24, 8);
        unsigned char *r = malloc(raw + 1);
        if (!r || ZSTD_decompress(r, raw, p + off, clen) != raw || raw > 65535)
            return 1;
        dbg_buf_put8(&b, (uint8_t)le(e, 4));
        dbg_buf_put8(&b, (uint8_t)raw);
        dbg_buf_put8(&b, (uint8_t)(raw >> 8));
        dbg_buf_put(&b, r, raw);
        free(r);
    }
    int rc = write_seed(argv[1], "raw", &b) == 0 ? 0 : 1;
    dbg_buf_free(&b);
    free(p);
    return rc;
}
