/* rt_resident_bytes: see rtscope/base/procmem.h. */
#include "rtscope/base/procmem.h"

#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

long long rt_resident_bytes(void)
{
    long long size, pages;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    int got = fscanf(f, "%lld %lld", &size, &pages);
    fclose(f);
    long psz = sysconf(_SC_PAGESIZE);
    return got == 2 && psz > 0 ? pages * psz : -1;
}

/* Note [Big arrays given back]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The heap debugger's graph and the dominator tree's work arrays are
 * arrays of 4 or 8 bytes a closure: tens of MB each, made and freed in
 * turn. glibc raises its mmap threshold to the size of each mmapped
 * block freed (up to 32 MB), and from then on such arrays come from the
 * heap, where what is freed stays with the process: in the explorer 30
 * MB more at the dominator tree's peak and 50 MB more kept after it, on a
 * snapshot of 5.2 million closures (benchmarks/explore). Fixed (at
 * glibc's default, 128 KiB), big arrays are mmapped and given back. */
void rt_mmap_big_arrays(void)
{
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}
