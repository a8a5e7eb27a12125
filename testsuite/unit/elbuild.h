/* Build eventlogs in memory for the decoder tests and the fuzz seeds: a
 * header declaring event types, blocks, events, the end marker. */
#ifndef RTSCOPE_ELBUILD_H
#define RTSCOPE_ELBUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct elbuild {
    uint8_t *buf;
    size_t len, cap;
    size_t block_at; /* offset of the open block marker, or SIZE_MAX */
} elbuild;

void eb_init(elbuild *b);
void eb_free(elbuild *b);
void eb_u8(elbuild *b, uint8_t v);
void eb_u16(elbuild *b, uint16_t v);
void eb_u32(elbuild *b, uint32_t v);
void eb_u64(elbuild *b, uint64_t v);
void eb_bytes(elbuild *b, const void *p, size_t n);
void eb_cstr(elbuild *b, const char *s); /* with its NUL */

/* Header with the standard GHC 9.0.2 + 9.2 types (sizes as GHC declares
 * them). `extra` more (num, size) pairs may follow. */
void eb_header_std(elbuild *b, size_t nextra, const uint16_t (*extra)[2]);
/* Header with exactly these (num, size) pairs. */
void eb_header(elbuild *b, size_t n, const uint16_t (*types)[2]);
/* Fixed-size event with the given payload. */
void eb_event(elbuild *b, uint16_t type, uint64_t ts, const void *payload,
              size_t len);
/* Variable-size event. */
void eb_var_event(elbuild *b, uint16_t type, uint64_t ts, const void *payload,
                  size_t len);
void eb_block_begin(elbuild *b, uint16_t cap, uint64_t ts);
void eb_block_end(elbuild *b, uint64_t end_ts);
void eb_data_end(elbuild *b);

/* rtscope's samples as its RTS posts them: user binary messages (181)
 * whose payload is ASCII text, "rtscope:st NS THREAD FLAGS FRAME..." or
 * "rtscope:sa BYTES THREAD SIZE FLAGS FRAME..." (decimal, frames in
 * lowercase hexadecimal); `depth` frames, innermost first. */
void eb_time_sample(elbuild *b, uint64_t ts, uint64_t weight_ns,
                    uint32_t thread, uint16_t flags, uint16_t depth,
                    const uint64_t *frames);
void eb_alloc_sample(elbuild *b, uint64_t ts, uint64_t weight_bytes,
                     uint32_t thread, uint32_t size, uint16_t flags,
                     uint16_t depth, const uint64_t *frames);
/* Append such a payload to `p` (kind 1 time, 2 allocation: the size field
 * only for kind 2), to be cut or changed before it is posted with
 * eb_var_event(b, 181, ...). */
void eb_sample_payload(elbuild *p, uint8_t kind, uint64_t weight,
                       uint32_t thread, uint32_t size, uint16_t flags,
                       uint16_t depth, const uint64_t *frames);
/* An EVENT_IPE: the address and its six strings (table name, closure type,
 * type, label, module, source span). */
void eb_ipe(elbuild *b, uint64_t ts, uint64_t info, const char *const s[6]);

/* Declared size GHC uses for a standard type (0xffff: variable). */
uint16_t eb_std_size(uint16_t type);

#endif
