/* Constructor descriptions as GHC writes them ("main:Main.Leak") and as
 * users name them (debug_heap.h: dbg_con_display, dbg_con_matches). */
#include "rtscope/debug/debug_heap.h"

#include <stdio.h>
#include <string.h>

/* Where the constructor name starts: after the last '.' that ends a module
 * component (upper-case start), so operators like :. keep their dots.
 * Returns the index of that '.', or -1. */
static long con_split(const char *s)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return -1;
    const char *p = colon + 1, *split = NULL;
    while (*p >= 'A' && *p <= 'Z') {
        const char *dot = strchr(p, '.');
        if (!dot || dot[1] == '\0')
            break;
        split = dot;
        p = dot + 1;
    }
    return split ? split - s : -1;
}

void dbg_con_display(const char *descr, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", descr);
    long k = con_split(descr);
    if (k >= 0 && (size_t)k < outlen - 1)
        out[k] = ':';
}

int dbg_con_matches(const char *descr, const char *name)
{
    if (strcmp(descr, name) == 0)
        return 1;
    char disp[1024];
    dbg_con_display(descr, disp, sizeof(disp));
    if (strcmp(disp, name) == 0)
        return 1;
    long k = con_split(descr);
    const char *colon = strchr(descr, ':');
    const char *con = k >= 0 ? descr + k + 1 : (colon ? colon + 1 : descr);
    if (strcmp(con, name) == 0)
        return 1;
    if (colon && k >= 0) { /* Mod.Name or Mod:Name */
        size_t ml = (size_t)(descr + k - (colon + 1));
        if (strncmp(name, colon + 1, ml) == 0 &&
            (name[ml] == '.' || name[ml] == ':') &&
            strcmp(name + ml + 1, con) == 0)
            return 1;
    }
    return 0;
}
