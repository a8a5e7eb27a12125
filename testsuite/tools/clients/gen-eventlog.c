/* gen-eventlog: write a synthetic heap-profile eventlog, for the html tests
 * and benchmark (a -hi eventlog with thousands of IPE-named info tables
 * needs a program that makes that many; this makes one of any size).
 *
 *   gen-eventlog [options] OUT.eventlog
 *     --tables N     bands / info tables (default 20)
 *     --samples N    censuses (default 100), or
 *     --size MB      as many censuses as make the file this big
 *     --hT           label bands by closure type name, no IPE events
 *                    (default: -hi, labels are addresses with IPE events)
 *     --weird        labels and markers with quotes, <script>, bad UTF-8
 *     --markers N    a traceMarker every N censuses (default 10)
 *     --no-samples   no heap profile at all (GC heap events only)
 *
 * Band 0 leaks (grows by 100 KiB per census, the steepest and, over the run,
 * the largest band); band 1 is steady at 3 MB; the others are zipf-sized,
 * wave over time and are absent from about a quarter of the censuses. The
 * census interval is 0.1 s. Everything is deterministic. */
#include "elbuild.h"
#include "rtscope/eventlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gen {
    FILE *out;
    elbuild b;  /* current block */
    elbuild pl; /* payload scratch */
    uint64_t written;
} gen;

static void gen_flush(gen *g)
{
    if (fwrite(g->b.buf, 1, g->b.len, g->out) != g->b.len) {
        perror("gen-eventlog: write");
        exit(1);
    }
    g->written += g->b.len;
    g->b.len = 0;
}

static void gen_var(gen *g, uint16_t type, uint64_t ts)
{
    eb_var_event(&g->b, type, ts, g->pl.buf, g->pl.len);
    g->pl.len = 0;
}

static void gen_fixed(gen *g, uint16_t type, uint64_t ts)
{
    eb_event(&g->b, type, ts, g->pl.buf, g->pl.len);
    g->pl.len = 0;
}

static uint32_t gen_hash(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9e3779b1u ^ (b + 0x7f4a7c15u) * 0x85ebca6bu;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

static const char *gen_ctype_names[] = {"CONSTR", "THUNK", "FUN", "ARR_WORDS",
                                        "MUT_ARR_PTRS_CLEAN", "PAP"};
static const int gen_ctype_nums[] = {1, 15, 8, 42, 43, 25};

int main(int argc, char **argv)
{
    unsigned tables = 20, samples = 100, markers = 10;
    double size_mb = 0;
    int hT = 0, weird = 0, no_samples = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tables") == 0 && i + 1 < argc)
            tables = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
            samples = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
            size_mb = atof(argv[++i]);
        else if (strcmp(argv[i], "--markers") == 0 && i + 1 < argc)
            markers = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--hT") == 0)
            hT = 1;
        else if (strcmp(argv[i], "--weird") == 0)
            weird = 1;
        else if (strcmp(argv[i], "--no-samples") == 0)
            no_samples = 1;
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: gen-eventlog [--tables N] [--samples N] "
                            "[--size MB] [--hT] [--weird] [--markers N] "
                            "[--no-samples] OUT\n");
            return 2;
        }
    }
    if (!path || tables < 2) {
        fprintf(stderr, "gen-eventlog: need OUT and --tables >= 2\n");
        return 2;
    }
    gen g;
    memset(&g, 0, sizeof(g));
    g.out = fopen(path, "wb");
    if (!g.out) {
        perror(path);
        return 1;
    }
    eb_init(&g.b);
    eb_init(&g.pl);
    eb_header_std(&g.b, 0, NULL);
    gen_flush(&g);

    /* Run facts, in one block on capability 0. */
    uint64_t ts = 1000;
    eb_block_begin(&g.b, 0, ts);
    static const char args[] = "LeakGen\0+RTS\0-hi\0-l\0-i0.1\0-RTS\0serve";
    eb_u32(&g.pl, 1);
    eb_bytes(&g.pl, args, sizeof(args));
    if (hT)
        memcpy(g.pl.buf + 4 + 14, "hT", 2);
    gen_var(&g, EL_PROGRAM_ARGS, ts);
    eb_u32(&g.pl, 1);
    eb_bytes(&g.pl, "GHC-9.0.2 rts_l", 15);
    gen_var(&g, EL_RTS_IDENTIFIER, ts);
    eb_u32(&g.pl, 1);
    eb_u64(&g.pl, 1767225600); /* 2026-01-01 */
    eb_u32(&g.pl, 0);
    gen_fixed(&g, EL_WALL_CLOCK_TIME, ts);
    eb_u32(&g.pl, 1);
    eb_u16(&g.pl, 2);
    eb_u64(&g.pl, 0);
    eb_u64(&g.pl, 1 << 20);
    eb_u64(&g.pl, 1 << 20);
    eb_u64(&g.pl, 4096);
    gen_fixed(&g, EL_HEAP_INFO_GHC, ts);
    if (!no_samples) {
        eb_u8(&g.pl, 0);
        eb_u64(&g.pl, 100000000); /* 0.1 s */
        eb_u32(&g.pl, hT ? EL_BREAKDOWN_CLOSURE_TYPE : EL_BREAKDOWN_INFO_TABLE);
        for (int i = 0; i < 7; i++)
            eb_u8(&g.pl, 0);
        gen_var(&g, EL_HEAP_PROF_BEGIN, ts);
    }
    eb_block_end(&g.b, ts);
    gen_flush(&g);

    /* Labels: -hi addresses (IPE events as the RTS posts them: before the
     * first census that uses them), or -hT closure-type names. */
    char (*label)[96] = calloc(tables, sizeof(*label));
    if (!label)
        return 1;
    for (unsigned j = 0; j < tables; j++) {
        if (hT) {
            if (j == 0)
                snprintf(label[j], sizeof(label[j]), "Leak");
            else if (j == 1)
                snprintf(label[j], sizeof(label[j]), "ARR_WORDS");
            else if (weird && j == 2)
                snprintf(label[j], sizeof(label[j]),
                         "\"quoted\"</script><script>window.__pwned=1</script>");
            else if (weird && j == 3)
                snprintf(label[j], sizeof(label[j]), "bad\xff\xfeutf8");
            else
                snprintf(label[j], sizeof(label[j]), "Con%u", j);
        } else {
            snprintf(label[j], sizeof(label[j]), "0x%x", 0x4c0000u + 0x40u * j);
        }
    }

    uint64_t interval = 100000000;
    uint64_t target = (uint64_t)(size_mb * 1024 * 1024);
    unsigned n = 0;
    int ipe_done = 0;
    for (;; n++) {
        if (target ? g.written >= target : n >= samples)
            break;
        ts = (uint64_t)(n + 1) * interval;
        eb_block_begin(&g.b, 0, ts);
        if (!hT && !ipe_done && !no_samples) {
            ipe_done = 1;
            for (unsigned j = 0; j < tables; j++) {
                char name[96], mod[64], loc[96];
                int ct = j == 0 ? 0 : (int)(gen_hash(j, 7) % 6);
                unsigned m = j == 0 ? 0 : 1 + j % 40;
                snprintf(mod, sizeof(mod), j == 0 ? "Main" : "Data.Mod%u", m);
                if (j == 0)
                    snprintf(name, sizeof(name), "Main_Leak_con_info");
                else
                    snprintf(name, sizeof(name), "Data_Mod%u_t%u_info", m, j);
                snprintf(loc, sizeof(loc), "src/%s.hs:%u:%u-%u",
                         j == 0 ? "Main" : "Mod", 10 + j % 900, 5, 40);
                eb_u64(&g.pl, 0x4c0000u + 0x40u * j);
                eb_cstr(&g.pl, weird && j == 2 ? "tab\"le</script><b>x" : name);
                char ctn[8];
                snprintf(ctn, sizeof(ctn), "%d", gen_ctype_nums[ct]);
                eb_cstr(&g.pl, ctn);
                eb_cstr(&g.pl, j == 0 ? "main:Main" : "main:Data.Mod");
                eb_cstr(&g.pl, weird && j == 3 ? "bad\xff\xfe" : (j == 0 ? "Leak" : gen_ctype_names[ct]));
                eb_cstr(&g.pl, mod);
                eb_cstr(&g.pl, loc);
                gen_var(&g, EL_IPE, ts);
                if (g.b.len > (1u << 20)) {
                    eb_block_end(&g.b, ts);
                    gen_flush(&g);
                    eb_block_begin(&g.b, 0, ts);
                }
            }
        }
        /* GC heap events */
        double heap = 8e6 + 4096.0 * n + (gen_hash(n, 1) % 100000);
        eb_u32(&g.pl, 1);
        eb_u64(&g.pl, (uint64_t)(heap * 1.5));
        gen_fixed(&g, EL_HEAP_SIZE, ts - 1000);
        eb_u32(&g.pl, 1);
        eb_u64(&g.pl, (uint64_t)(heap * 1.2));
        gen_fixed(&g, EL_BLOCKS_SIZE, ts - 1000);
        eb_u32(&g.pl, 1);
        eb_u64(&g.pl, (uint64_t)heap);
        gen_fixed(&g, EL_HEAP_LIVE, ts - 1000);
        eb_u32(&g.pl, 1);
        eb_u32(&g.pl, 12);
        eb_u32(&g.pl, 10);
        eb_u32(&g.pl, n % 7 == 0 ? 2 : 0);
        gen_fixed(&g, EL_MEM_RETURN, ts - 1000);
        if (markers && n % markers == 0) {
            char text[96];
            if (weird && n == 0)
                snprintf(text, sizeof(text),
                         "</script><script>window.__pwned=2</script>");
            else
                snprintf(text, sizeof(text), "phase %u", n / markers);
            eb_bytes(&g.pl, text, strlen(text));
            gen_var(&g, EL_USER_MARKER, ts - 500);
            snprintf(text, sizeof(text), "event %u", n);
            eb_bytes(&g.pl, text, strlen(text));
            gen_var(&g, EL_USER_MSG, ts - 400);
        }
        if (!no_samples) {
            eb_u64(&g.pl, n);
            gen_fixed(&g, EL_HEAP_PROF_SAMPLE_BEGIN, ts);
            for (unsigned j = 0; j < tables; j++) {
                uint64_t v;
                if (j == 0) {
                    v = 102400ull * (n + 1);
                } else if (j == 1) {
                    v = 3000000;
                } else {
                    uint32_t h = gen_hash(n, j);
                    if (h % 4 == 0)
                        continue; /* absent from this census */
                    double base = 2e6 / (double)j;
                    double wave = 1.0 + 0.5 * (double)((n / 10 + j) % 7) / 7.0;
                    v = (uint64_t)(base * wave) / 8 * 8 + 16;
                }
                eb_u8(&g.pl, 0);
                eb_u64(&g.pl, v);
                eb_cstr(&g.pl, label[j]);
                gen_var(&g, EL_HEAP_PROF_SAMPLE_STRING, ts);
                if (g.b.len > (2u << 20) - 256) {
                    eb_block_end(&g.b, ts);
                    gen_flush(&g);
                    eb_block_begin(&g.b, 0, ts);
                }
            }
            eb_u64(&g.pl, n);
            gen_fixed(&g, EL_HEAP_PROF_SAMPLE_END, ts);
        }
        eb_block_end(&g.b, ts);
        gen_flush(&g);
    }
    eb_data_end(&g.b);
    gen_flush(&g);
    if (fclose(g.out) != 0) {
        perror(path);
        return 1;
    }
    fprintf(stderr, "gen-eventlog: %s: %u censuses, %u bands, %.1f MiB\n",
            path, n, tables, (double)g.written / (1024.0 * 1024.0));
    free(label);
    eb_free(&g.b);
    eb_free(&g.pl);
    return 0;
}
