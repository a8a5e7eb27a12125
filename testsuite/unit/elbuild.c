#include "elbuild.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eb_init(elbuild *b)
{
    memset(b, 0, sizeof(*b));
    b->block_at = SIZE_MAX;
}

void eb_free(elbuild *b)
{
    free(b->buf);
    eb_init(b);
}

void eb_bytes(elbuild *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + n)
            nc *= 2;
        b->buf = realloc(b->buf, nc);
        if (!b->buf)
            abort();
        b->cap = nc;
    }
    if (n)
        memcpy(b->buf + b->len, p, n);
    b->len += n;
}

void eb_u8(elbuild *b, uint8_t v)
{
    eb_bytes(b, &v, 1);
}

void eb_u16(elbuild *b, uint16_t v)
{
    uint8_t p[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    eb_bytes(b, p, 2);
}

void eb_u32(elbuild *b, uint32_t v)
{
    eb_u16(b, (uint16_t)(v >> 16));
    eb_u16(b, (uint16_t)v);
}

void eb_u64(elbuild *b, uint64_t v)
{
    eb_u32(b, (uint32_t)(v >> 32));
    eb_u32(b, (uint32_t)v);
}

void eb_cstr(elbuild *b, const char *s)
{
    eb_bytes(b, s, strlen(s) + 1);
}

static const uint16_t eb_std_types[][2] = {
    {0, 4},      {1, 4},      {2, 10},     {3, 4},      {4, 6},
    {8, 6},      {9, 0},      {10, 0},     {11, 0},     {12, 0},
    {15, 4},     {16, 0xffff}, {18, 14},   {19, 0xffff}, {20, 0},
    {21, 0},     {22, 0},     {25, 6},     {26, 4},     {27, 6},
    {28, 6},     {29, 0xffff}, {30, 0xffff}, {31, 0xffff}, {32, 8},
    {33, 8},     {34, 56},    {35, 0},     {36, 0},     {37, 0},
    {38, 0},     {39, 2},     {40, 0},     {41, 0},     {42, 0xffff},
    {43, 16},    {44, 0xffff}, {45, 2},    {46, 2},     {47, 2},
    {48, 2},     {49, 12},    {50, 12},    {51, 12},    {52, 38},
    {53, 58},    {54, 0},     {55, 18},    {56, 12},    {57, 8},
    {58, 0xffff}, {59, 0},    {90, 16},    {91, 12},    {160, 0xffff},
    {161, 0xffff}, {162, 8},  {163, 0xffff}, {164, 0xffff}, {165, 8},
    {166, 16},   {167, 0xffff}, {168, 8},  {169, 0xffff}, {181, 0xffff},
    {200, 0},    {201, 4},    {202, 0},    {203, 0},    {204, 0},
    {205, 0},    {206, 2},    {207, 13},   {210, 0xffff}, {211, 32},
    {212, 0},
};

uint16_t eb_std_size(uint16_t type)
{
    for (size_t i = 0; i < sizeof(eb_std_types) / sizeof(eb_std_types[0]); i++)
        if (eb_std_types[i][0] == type)
            return eb_std_types[i][1];
    return 0;
}

static void eb_type(elbuild *b, uint16_t num, uint16_t size)
{
    static const char desc[] = "test event";
    eb_u32(b, 0x65746200u);
    eb_u16(b, num);
    eb_u16(b, size);
    eb_u32(b, sizeof(desc) - 1);
    eb_bytes(b, desc, sizeof(desc) - 1);
    eb_u32(b, 0);
    eb_u32(b, 0x65746500u);
}

void eb_header(elbuild *b, size_t n, const uint16_t (*types)[2])
{
    eb_u32(b, 0x68647262u);
    eb_u32(b, 0x68657462u);
    for (size_t i = 0; i < n; i++)
        eb_type(b, types[i][0], types[i][1]);
    eb_u32(b, 0x68657465u);
    eb_u32(b, 0x68647265u);
    eb_u32(b, 0x64617462u);
}

void eb_header_std(elbuild *b, size_t nextra, const uint16_t (*extra)[2])
{
    eb_u32(b, 0x68647262u);
    eb_u32(b, 0x68657462u);
    for (size_t i = 0; i < sizeof(eb_std_types) / sizeof(eb_std_types[0]); i++)
        eb_type(b, eb_std_types[i][0], eb_std_types[i][1]);
    for (size_t i = 0; i < nextra; i++)
        eb_type(b, extra[i][0], extra[i][1]);
    eb_u32(b, 0x68657465u);
    eb_u32(b, 0x68647265u);
    eb_u32(b, 0x64617462u);
}

void eb_sample_payload(elbuild *p, uint8_t kind, uint64_t weight,
                       uint32_t thread, uint32_t size, uint16_t flags,
                       uint16_t depth, const uint64_t *frames)
{
    char num[48];
    eb_bytes(p, kind == 2 ? "rtscope:sa" : "rtscope:st", 10);
    int n = snprintf(num, sizeof(num), " %" PRIu64 " %" PRIu32, weight,
                     thread);
    eb_bytes(p, num, (size_t)n);
    if (kind == 2) {
        n = snprintf(num, sizeof(num), " %" PRIu32, size);
        eb_bytes(p, num, (size_t)n);
    }
    n = snprintf(num, sizeof(num), " %u", (unsigned)flags);
    eb_bytes(p, num, (size_t)n);
    for (uint16_t i = 0; i < depth; i++) {
        n = snprintf(num, sizeof(num), " %" PRIx64, frames[i]);
        eb_bytes(p, num, (size_t)n);
    }
}

static void eb_sample(elbuild *b, uint8_t kind, uint64_t ts, uint64_t weight,
                      uint32_t thread, uint32_t size, uint16_t flags,
                      uint16_t depth, const uint64_t *frames)
{
    elbuild p;
    eb_init(&p);
    eb_sample_payload(&p, kind, weight, thread, size, flags, depth, frames);
    eb_var_event(b, 181, ts, p.buf, p.len);
    eb_free(&p);
}

void eb_time_sample(elbuild *b, uint64_t ts, uint64_t weight_ns,
                    uint32_t thread, uint16_t flags, uint16_t depth,
                    const uint64_t *frames)
{
    eb_sample(b, 1, ts, weight_ns, thread, 0, flags, depth, frames);
}

void eb_alloc_sample(elbuild *b, uint64_t ts, uint64_t weight_bytes,
                     uint32_t thread, uint32_t size, uint16_t flags,
                     uint16_t depth, const uint64_t *frames)
{
    eb_sample(b, 2, ts, weight_bytes, thread, size, flags, depth, frames);
}

void eb_ipe(elbuild *b, uint64_t ts, uint64_t info, const char *const s[6])
{
    elbuild p;
    eb_init(&p);
    eb_u64(&p, info);
    for (int i = 0; i < 6; i++)
        eb_cstr(&p, s[i]);
    eb_var_event(b, 169, ts, p.buf, p.len);
    eb_free(&p);
}

void eb_event(elbuild *b, uint16_t type, uint64_t ts, const void *payload,
              size_t len)
{
    eb_u16(b, type);
    eb_u64(b, ts);
    eb_bytes(b, payload, len);
}

void eb_var_event(elbuild *b, uint16_t type, uint64_t ts, const void *payload,
                  size_t len)
{
    eb_u16(b, type);
    eb_u64(b, ts);
    eb_u16(b, (uint16_t)len);
    eb_bytes(b, payload, len);
}

void eb_block_begin(elbuild *b, uint16_t cap, uint64_t ts)
{
    b->block_at = b->len;
    eb_u16(b, 18);
    eb_u64(b, ts);
    eb_u32(b, 0);
    eb_u64(b, 0);
    eb_u16(b, cap);
}

void eb_block_end(elbuild *b, uint64_t end_ts)
{
    size_t at = b->block_at;
    uint32_t size = (uint32_t)(b->len - at);
    uint8_t *p = b->buf + at + 10;
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(size >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        p[4 + i] = (uint8_t)(end_ts >> (56 - 8 * i));
    b->block_at = SIZE_MAX;
}

void eb_data_end(elbuild *b)
{
    eb_u16(b, 0xffff);
}
