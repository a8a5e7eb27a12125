#!/usr/bin/env python3
"""sample-shares: what sampled call stacks (+RTS --sample-alloc or
--sample-time, through `rtscope pprof --stacks` and `go tool pprof`) say
each caller costs, against GHC's own `-prof -fprof-auto` of the same
program.

    sample-shares PROG.prof TOP.txt alloc|time TOLERANCE NAME...
    sample-shares SOLO.txt TOP.txt time TOLERANCE NAME...

PROG.prof is the .prof file of a -prof -fprof-auto run (+RTS -p); SOLO.txt
has a line `NAME SECONDS` for each NAME: the mutator CPU time of a run of
the same optimised program that runs NAME only (its share by time is its
seconds over the sum), for time, where -prof's own costs, which differ from
function to function, move the shares it reports; TOP.txt
is `go tool pprof -top -cum -nodefraction=0 -nodecount=100000
-sample_index=alloc_space` (alloc) or `-sample_index=cpu` (time) of the
sampled run. For each NAME (a top-level binding of module Main) the
share by -prof is its inherited %alloc or %time (summed over the lines
of its cost centre), the share by samples its cumulative percentage (every
sample with the binding's frame on its stack). Prints both; exit 1 when a
share differs by more than TOLERANCE points or a NAME is missing."""
import re
import sys


def prof_shares(path, metric):
    """inherited %time or %alloc of each cost centre of module Main"""
    col = -2 if metric == "time" else -1
    shares = {}
    in_tree = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if re.match(r"\s*COST CENTRE\s+MODULE\s+SRC\s+no\.", line):
            in_tree = True
            continue
        if not in_tree:
            continue
        f = line.split()
        if len(f) < 9 or f[1] != "Main":
            continue
        try:
            v = float(f[col])
        except ValueError:
            continue
        shares[f[0]] = shares.get(f[0], 0.0) + v
    return shares


def solo_shares(path):
    """each NAME's seconds over the sum, in percent"""
    secs = {}
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if len(f) == 2:
            secs[f[0]] = float(f[1])
    total = sum(secs.values())
    return {k: 100.0 * v / total for k, v in secs.items()} if total > 0 else {}


def pprof_shares(path):
    """cum% of each function of go tool pprof -top -cum, by binding"""
    shares = {}
    rows = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if re.match(r"\s*flat\s+flat%\s+sum%\s+cum\s+cum%", line):
            rows = True
            continue
        if not rows:
            continue
        f = line.split(None, 5)
        if len(f) < 6:
            continue
        m = re.search(r"Main\.(?:\$w)?([A-Za-z0-9_']+)", f[5])
        if m is None or not f[4].endswith("%"):
            continue
        name = m.group(1)
        # a binding's frames may have several functions (its closures)
        shares[name] = max(shares.get(name, 0.0), float(f[4][:-1]))
    return shares


def main(argv):
    if len(argv) < 6 or argv[3] not in ("alloc", "time"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1].endswith(".prof"):
        prof = prof_shares(argv[1], argv[3])
    else:
        prof = solo_shares(argv[1])
    samp = pprof_shares(argv[2])
    tol = float(argv[4])
    bad = 0
    ref = "-prof" if argv[1].endswith(".prof") else "alone"
    print("%-10s %8s %8s %6s" % ("caller", ref, "samples", "diff"))
    for name in argv[5:]:
        p, s = prof.get(name), samp.get(name)
        if p is None or s is None:
            print("%-10s %8s %8s  missing" % (name, p, s))
            bad += 1
            continue
        d = s - p
        flag = "" if abs(d) <= tol else "  over %.1f" % tol
        print("%-10s %7.1f%% %7.1f%% %+6.1f%s" % (name, p, s, d, flag))
        bad += abs(d) > tol
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
