/* What the samples tests feed the model (test_samples.c,
 * test_report_samples.c): see samples_fixture.h. */
#define _POSIX_C_SOURCE 200809L
#include "samples_fixture.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void fx_take_ipe(samples *s, uint64_t info, const char *table, const char *ct,
                 const char *ty, const char *label, const char *module,
                 const char *srcloc)
{
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = EL_IPE;
    ev.known = 1;
    ev.u.ipe.info = info;
    ev.u.ipe.table_name = (el_str){table, strlen(table)};
    ev.u.ipe.closure_desc = (el_str){ct, strlen(ct)};
    ev.u.ipe.ty_desc = (el_str){ty, strlen(ty)};
    ev.u.ipe.label = (el_str){label, strlen(label)};
    ev.u.ipe.module = (el_str){module, strlen(module)};
    ev.u.ipe.srcloc = (el_str){srcloc, strlen(srcloc)};
    ck_assert_int_eq(samples_take(s, &ev), 0);
}

void fx_take_sample(samples *s, el_sample_kind kind, uint64_t weight,
                    uint32_t size, uint16_t flags, uint16_t depth,
                    const uint64_t *frames)
{
    char text[17 * 16 + 1];
    size_t len = 0;
    ck_assert_uint_le(depth, 16);
    for (unsigned i = 0; i < depth; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%" PRIx64,
                                i ? " " : "", frames[i]);
    el_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = EL_USER_BINARY_MSG;
    ev.known = 1;
    ev.ts = 1000;
    ev.u.binary.data = (el_str){text, len};
    ev.u.binary.sample = (uint8_t)kind;
    ev.u.binary.stack.weight = weight;
    ev.u.binary.stack.thread = 1;
    ev.u.binary.stack.size = size;
    ev.u.binary.stack.flags = flags;
    ev.u.binary.stack.depth = depth;
    ev.u.binary.stack.frames = text;
    ck_assert_int_eq(samples_take(s, &ev), 0);
}
