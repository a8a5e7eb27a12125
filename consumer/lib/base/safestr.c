/* Escaping a program's control characters (rtscope/base/safestr.h). */
#include "rtscope/base/safestr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes at s[i] a terminal acts on: 1 for a C0 control or DEL, 2 for a C1
 * control in UTF-8 (C2 80 to C2 9F), 0 for anything else. */
static size_t ctl_len(const unsigned char *s, size_t n, size_t i)
{
    if (s[i] < 0x20 || s[i] == 0x7f)
        return 1;
    if (s[i] == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f)
        return 2;
    return 0;
}

char *rt_str_escape_ctl(const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ctl_len(s, n, i);
        out += k == 0 ? 1 : k == 1 ? 4 : 6;
        i += k ? k : 1;
    }
    char *d = malloc(out + 1);
    if (!d)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ctl_len(s, n, i);
        if (k == 0)
            d[o++] = (char)s[i];
        else if (k == 1)
            o += (size_t)snprintf(d + o, 5, "\\x%02x", s[i]);
        else
            o += (size_t)snprintf(d + o, 7, "\\u%04x", s[i + 1]);
        i += k ? k : 1;
    }
    d[o] = '\0';
    return d;
}

void rt_str_blank_ctl(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t k = ctl_len((const unsigned char *)s, n, i);
        if (k)
            memset(s + i, '?', k);
        i += k ? k : 1;
    }
}
