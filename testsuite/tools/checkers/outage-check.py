#!/usr/bin/env python3
"""export-outage: from the sampler's scrapes of the exporter during the
InfluxDB outage (`time T` lines, then metric lines), check that the outage
lasted at least SECS seconds, that the exporter answered throughout, that
its queue never exceeded 16 KiB, and that its RSS stayed small and flat.
  outage-check.py START_FILE SAMPLES SECS"""
import sys
import time

start = float(open(sys.argv[1]).read())
secs = float(sys.argv[3])
outage = time.time() - start          # InfluxDB is started after this check
scrapes = []                          # (time, {metric: value})
for line in open(sys.argv[2]):
    f = line.split()
    if f[0] == 'time':
        scrapes.append((float(f[1]), {}))
    elif scrapes and len(f) == 2:
        m = scrapes[-1][1]
        k = f[0].split('{')[0]
        m[k] = max(m.get(k, 0.0), float(f[1]))
served = [(t, m) for t, m in scrapes if 'process_resident_memory_bytes' in m]
heap = [t for t, m in served if 'ghc_heap_size_bytes' in m]
queue = max(m.get('rtscope_influx_queue_bytes', 0) for _, m in served)
rss = [(t, m['process_resident_memory_bytes']) for t, m in served]
mid = (rss[0][0] + rss[-1][0]) / 2
first = max(r for t, r in rss if t <= mid)
second = max(r for t, r in rss if t > mid)
print('outage %.1f s; %d scrapes answered over %.1f s, %d with the program; '
      'max queue %d bytes; max RSS %.1f MB (first half), %.1f MB (second)'
      % (outage, len(served), served[-1][0] - served[0][0], len(heap),
         queue, first / 1e6, second / 1e6))
assert outage >= secs, outage
assert served[-1][0] - served[0][0] >= secs - 2, 'scrapes did not span it'
assert len(heap) >= secs, len(heap)   # about two a second were taken
assert queue <= 16384, queue
assert max(first, second) < 30 * 2**20, (first, second)
assert second <= first + 2 * 2**20, (first, second)
