/* Big-endian field readers shared by the eventlog modules (internal). */
#ifndef RTSCOPE_BYTES_H
#define RTSCOPE_BYTES_H

#include <stdint.h>

static inline uint16_t bytes_get_u16(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t bytes_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static inline uint64_t bytes_get_u64(const uint8_t *p)
{
    return (uint64_t)bytes_get_u32(p) << 32 | bytes_get_u32(p + 4);
}

#endif
