#!/usr/bin/env python3
"""Check the meaning of MEM_RETURN and BLOCKS_SIZE in `rtscope show` output
of one run (toolchain-heap-events): per capability, each BLOCKS_SIZE follows
its GC's HEAP_SIZE and is in (0, heap size]; each MEM_RETURN has
returned <= current - needed when current > needed (else 0); at least one
major GC returned megablocks, and the next heap size reflects it."""
import re
import sys

heap = re.compile(r': cap (\d+): size of heap capset 0: (\d+) bytes')
blocks = re.compile(r': cap (\d+): blocks size of heap capset 0: (\d+) bytes')
mem = re.compile(r'memory returned \(mblocks\) for heap capset 0: '
                 r'current (\d+), needed (\d+), returned (\d+)')
mblock = 1 << 20
last_heap, pairs, returns, after = {}, 0, [], None
for line in open(sys.argv[1]):
    m = heap.search(line)
    if m:
        last_heap[m[1]] = int(m[2])
        if after is not None and after[1] is None:
            after[1] = int(m[2])
        continue
    m = blocks.search(line)
    if m:
        h = last_heap.pop(m[1], None)
        assert h is not None, 'BLOCKS_SIZE without HEAP_SIZE: ' + line
        b = int(m[2])
        assert 0 < b <= h, 'blocks size %d not in (0, heap %d]' % (b, h)
        pairs += 1
        continue
    m = mem.search(line)
    if m:
        cur, need, ret = map(int, m.groups())
        assert ret <= max(cur - need, 0), line
        returns.append((cur, need, ret))
        if ret > 0 and after is None:
            after = [(cur, ret), None]
assert pairs >= 3, pairs
assert returns, 'no MEM_RETURN'
assert after is not None, 'no major GC returned memory: %s' % returns
(cur, ret), h = after
print('%d GCs with blocks size <= heap size; %d major GCs; first return: '
      '%d of %d megablocks, heap size after it %d bytes'
      % (pairs, len(returns), ret, cur, h))
assert h is not None and h <= (cur - ret) * mblock, (cur, ret, h)
