#!/usr/bin/env python3
"""pprof-top-check: the bands `go tool pprof -top` shows for a profile of
`rtscope pprof` against the same census in `rtscope html --json --bands 0`.

    pprof-top-check TOP.txt REPORT.json [N [CENSUS]]
    pprof-top-check --diff TOP.txt REPORT.json BASE.json [N]

TOP.txt is `go tool pprof -top -unit=B -nodefraction=0 -nodecount=100000
-sample_index=inuse_space`; CENSUS is a census number, or `largest`
(default, rtscope pprof's default: the largest by total bytes, the first of
equals). The report's chart must hold every census in its own bucket.
The first N (default 5) lines with a non-zero flat column must name bands
of that census with exactly their bytes, and be its N largest values, in
order. With --diff the profile is `rtscope pprof --base` of two runs (each
its largest census): the values are REPORT's minus BASE's, band by band,
and the first N lines with a positive flat column must be the N largest
growths. Prints both lists; exit 1 on a mismatch."""
import json
import re
import sys


def census_values(report, which):
    d = json.load(open(report, encoding="utf-8"))
    S, P = d["strings"], d["profile"]
    times = P["chart"]["times"]
    assert len(times) == P["meta"]["samples"], "a chart bucket holds several censuses"
    assert P["chart"]["other"] == 0, "run html with --bands 0"
    vals = [dict() for _ in times]
    for lab, ser in zip(P["chart"]["labels"], P["chart"]["series"]):
        for j, v in enumerate(ser["v"]):
            if v:
                vals[ser["s"] + j][S[lab]] = v
    if which == "largest":
        tot = [sum(c.values()) for c in vals]
        k = tot.index(max(tot))
    else:
        k = int(which)
    return k, vals[k]


def pprof_top(path):
    rows, on = [], False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if re.match(r"\s*flat\s+flat%", line):
            on = True
            continue
        m = on and re.match(r"\s*(-?\d+)B?\s+\S+\s+\S+\s+-?\d+B?\s+\S+\s+(.*)$", line)
        if m and int(m.group(1)) != 0:
            rows.append((m.group(2), int(m.group(1))))
    return rows


def main():
    if sys.argv[1] == "--diff":
        top, report, base = sys.argv[2:5]
        n = int(sys.argv[5]) if len(sys.argv) > 5 else 5
        k, census = census_values(report, "largest")
        kb, bc = census_values(base, "largest")
        for name, v in bc.items():
            census[name] = census.get(name, 0) - v
        census = {a: v for a, v in census.items() if v > 0}
        got = [r for r in pprof_top(top) if r[1] > 0][:n]
        print("census %d minus base census %d" % (k, kb))
    else:
        top, report = sys.argv[1], sys.argv[2]
        n = int(sys.argv[3]) if len(sys.argv) > 3 else 5
        which = sys.argv[4] if len(sys.argv) > 4 else "largest"
        k, census = census_values(report, which)
        got = pprof_top(top)[:n]
        print("census %d" % k)
    want = sorted(census.items(), key=lambda x: (-x[1], x[0]))[:n]
    for (gn, gv), (wn, wv) in zip(got, want):
        print("pprof %12d  %s\nhtml  %12d  %s" % (gv, gn, wv, wn))
    bad = len(got) < n or len(want) < n
    for i, (name, v) in enumerate(got):
        if census.get(name) != v or v != want[i][1]:
            print("MISMATCH: %s %d (html: %s)" % (name, v, census.get(name)))
            bad = True
    sys.exit(1 if bad else 0)


main()
