#!/usr/bin/env python3
"""heapsnapshot-check.py: does memlab read in a .heapsnapshot what rtscope
says of the same heap? (heapsnapshot-leak.test)

  heapsnapshot-check.py sizes MEMLAB CENSUS [PCT]
      the 10 largest names by bytes are the same, in the same order, in
      memlab's self sizes by node name (MEMLAB, memlab-heap.js's output)
      and in `rtscope debug census --by info` (CENSUS: its rows summed by
      the name after address and type), and their bytes agree within PCT%
      (default 1)
  heapsnapshot-check.py trace MEMLAB RETAINERS
      memlab's retainer trace (its shortest path from a GC root) and the
      first path of `rtscope debug retainers` (RETAINERS) go through the
      same closure types in the same order (memlab's synthetic root and
      group of roots left out)
  heapsnapshot-check.py retained MEMLAB DOMINATORS [PCT]
      suspect 1 of `rtscope debug dominators` (DOMINATORS) has the name of
      the node memlab found retaining most of that name, and their
      retained sizes agree within PCT% (default 1)

Prints what it compared; exit 1 when they disagree.
"""
import json
import re
import sys


def census_by_name(path):
    by = {}
    row = re.compile(r'^\s*(\d+)\s+(\d+)\s+0x[0-9a-f]+\s+\S+\s+(.*)$')
    for line in open(path):
        m = row.match(line.rstrip('\n'))
        if m:
            c = by.setdefault(m.group(3), [0, 0])
            c[0] += int(m.group(1))
            c[1] += int(m.group(2))
    return sorted(by.items(), key=lambda kv: (-kv[1][1], kv[0]))


def check_sizes(memlab, census, pct=1.0):
    mem = json.load(open(memlab))['sizes'][:10]
    cen = census_by_name(census)[:10]
    ok = True
    for i, (m, (name, (count, nbytes))) in enumerate(zip(mem, cen)):
        diff = abs(m[2] - nbytes) * 100.0 / max(nbytes, 1)
        same = m[0] == name and diff <= pct
        ok = ok and same
        print('%2d %s memlab %d bytes (%d), census %d bytes (%d), %.3f%%: %s'
              % (i + 1, 'ok ' if same else 'BAD', m[2], m[1], nbytes, count,
                 diff, name if m[0] == name else '%r vs %r' % (m[0], name)))
    return ok and len(mem) == len(cen) == 10


def retainer_types(path):
    """The closure types of the first path of `debug retainers`, runs
    shortened by "... K more closures" expanded."""
    types, inpath = [], False
    for line in open(path):
        if line.startswith('path '):
            if inpath:
                break
            inpath = True
            continue
        more = re.match(r'^\s+\.\.\. (\d+) more closures', line)
        if inpath and more and types:
            types += [types[-1]] * int(more.group(1))
        elif inpath and re.match(r'^\s+0x[0-9a-f]+\s+\S', line):
            types.append(line.split()[1])
    return types


def check_trace(memlab, retainers):
    trace = json.load(open(memlab)).get('trace') or []
    mem = [n['type'] for n in trace if n['type'] != 'synthetic']
    ret = retainer_types(retainers)
    print('memlab:    %s' % ' -> '.join(mem))
    print('retainers: %s' % ' -> '.join(ret))
    if trace:
        print('memlab\'s edges: %s' % ' '.join(str(n['edge']) for n in trace))
    return bool(mem) and mem == ret


def check_retained(memlab, dominators, pct=1.0):
    got = json.load(open(memlab)).get('retained')
    text = open(dominators).read()
    m = re.search(r'^suspect 1: 0x[0-9a-f]+ 0x[0-9a-f]+ \S+ (.*)\n'
                  r'\s+retains (\d+) bytes', text, re.M)
    if not got or not m:
        print('no suspect (rtscope) or no node (memlab)')
        return False
    name, retained = m.group(1), int(m.group(2))
    diff = abs(got['retained'] - retained) * 100.0 / max(retained, 1)
    print('suspect 1 %s: rtscope %d bytes, memlab %d bytes (%s), %.3f%%'
          % (name, retained, got['retained'], got['name'], diff))
    return got['name'] == name and diff <= pct


def main(argv):
    if len(argv) < 4 or argv[1] not in ('sizes', 'trace', 'retained'):
        sys.stderr.write(__doc__)
        return 2
    extra = [float(a) for a in argv[4:5]]
    if argv[1] == 'sizes':
        ok = check_sizes(argv[2], argv[3], *extra)
    elif argv[1] == 'trace':
        ok = check_trace(argv[2], argv[3])
    else:
        ok = check_retained(argv[2], argv[3], *extra)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
