/* Writes a small seed corpus for the decoder fuzzer into DIR: eventlogs
 * built in memory (every standard event type, blocks of two capabilities,
 * heap samples, IPE), so no binary seed is committed. */
#include "../unit/elbuild.c"

#include <stdio.h>

static void seed_write(const char *dir, const char *name, const elbuild *b,
                       uint8_t chunk)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputc(chunk, f);
    fwrite(b->buf, 1, b->len, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seedgen DIR\n");
        return 2;
    }
    elbuild b, p;
    /* 1: every standard type once, zero-filled payloads of the right size */
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 0, 1);
    uint8_t zeros[64] = {0};
    for (unsigned t = 0; t < 256; t++) {
        uint16_t size = eb_std_size((uint16_t)t);
        if (t == 18 || (size == 0 && t != 9 && t != 10))
            continue;
        if (size == 0xffff)
            eb_var_event(&b, (uint16_t)t, t, zeros, 16);
        else
            eb_event(&b, (uint16_t)t, t, zeros, size);
    }
    eb_block_end(&b, 300);
    eb_data_end(&b);
    seed_write(argv[1], "all-types", &b, 13);
    eb_free(&b);
    /* 2: two capabilities, heap samples and IPE */
    eb_init(&b);
    eb_header_std(&b, 0, NULL);
    eb_block_begin(&b, 1, 5);
    eb_init(&p);
    eb_u32(&p, 1);
    eb_event(&b, 1, 6, p.buf, 4);
    eb_block_end(&b, 50);
    eb_block_begin(&b, 0, 1);
    eb_event(&b, 1, 2, p.buf, 4);
    eb_var_event(&b, 58, 3, "mark", 4);
    eb_block_end(&b, 60);
    eb_free(&p);
    eb_block_begin(&b, 0xffff, 0);
    eb_init(&p);
    eb_u64(&p, 0x401000);
    eb_cstr(&p, "Main_x_info");
    eb_cstr(&p, "21");
    eb_cstr(&p, "T");
    eb_cstr(&p, "x");
    eb_cstr(&p, "Main");
    eb_cstr(&p, "Main.hs:1:1-5");
    eb_var_event(&b, 169, 1, p.buf, p.len);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 0);
    eb_event(&b, 162, 10, p.buf, 8);
    eb_free(&p);
    eb_init(&p);
    eb_u8(&p, 0);
    eb_u64(&p, 64);
    eb_cstr(&p, "0x401000");
    eb_var_event(&b, 164, 11, p.buf, p.len);
    eb_free(&p);
    eb_init(&p);
    eb_u64(&p, 0);
    eb_event(&b, 165, 12, p.buf, 8);
    eb_block_end(&b, 70);
    eb_data_end(&b);
    seed_write(argv[1], "caps-samples", &b, 1);
    seed_write(argv[1], "caps-samples-chunked", &b, 40);
    eb_free(&p);
    eb_free(&b);
    /* 3: rtscope's sampled call stacks (user binary messages of ASCII
     * text that start "rtscope:st " or "rtscope:sa "), an IPE entry for
     * one frame, a late and a truncated sample, uppercase hexadecimal,
     * among binary messages that are not samples (another tool's, a later
     * format's prefix, the prefix cut short); and the same with a corrupt
     * sample after them (a frame of 17 digits) */
    static const uint64_t frames[] = {0x401000, 0x402000, 0x403000};
    static const char *const ipe[6] = {"Main_go_info", "14", "main:Main",
                                       "go", "Main", "Main.hs:3:1-20"};
    static const uint8_t other[] = {0xff, 0xca, 0, 0, 0, 1, 0, 0, 0, 0};
    static const char upper[] = "rtscope:sa 131072 4 40 0 401000 40D5B8";
    static const char later[] = "rtscope:st2 1 2 3";
    static const char bad[] = "rtscope:st 1000 4 0 401000 12345678901234567";
    for (int h = 0; h < 2; h++) {
        eb_init(&b);
        eb_header_std(&b, 0, NULL);
        eb_block_begin(&b, 0, 1);
        eb_ipe(&b, 2, 0x401000, ipe);
        eb_time_sample(&b, 3, 10000000, 1, 0, 3, frames);
        eb_var_event(&b, 181, 3, other, sizeof(other));
        eb_alloc_sample(&b, 4, 524288, 1, 48, 0, 2, frames);
        eb_var_event(&b, 181, 4, later, sizeof(later) - 1);
        eb_var_event(&b, 181, 4, "rtscope:s", 9);
        eb_var_event(&b, 181, 4, upper, sizeof(upper) - 1);
        eb_alloc_sample(&b, 5, 524288, 2, 0, 1, 1, frames);
        eb_time_sample(&b, 6, 10000000, 1, 2, 0, NULL);
        if (h == 1)
            eb_var_event(&b, 181, 6, bad, sizeof(bad) - 1);
        eb_block_end(&b, 7);
        eb_data_end(&b);
        seed_write(argv[1], h == 0 ? "stack-samples" : "stack-samples-bad",
                   &b, 7);
        eb_free(&b);
    }
    return 0;
}
