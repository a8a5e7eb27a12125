#!/usr/bin/env python3
"""html-json-check: recompute the numbers of `rtscope html --json` from an
independent reading of the same eventlog (the canonical summary of
testsuite/tools/checkers/GhcEventsCheck.hs, i.e. the Haskell ghc-events library) and
compare them.

    html-json-check CANONICAL.txt REPORT.json [NBANDS]

For the NBANDS (default 2) largest bands of the report: integrated size
(trapezoids between census times, MiB*s, a band absent from a census
counting 0), standard deviation, slope, intercept and R^2 of the
least-squares line. Prints one line per band and number; exit 1 on any
mismatch (relative 1e-6)."""
import json
import math
import sys


def read_canonical(path):
    times, values = [], {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("sample "):
                _, i, ts = line.split(" ")
                assert int(i) == len(times)
                times.append(int(ts) / 1e9)
            elif line.startswith("value "):
                rest = line[len("value "):]
                i, rest = rest.split(" ", 1)
                label, v = rest.rsplit(" ", 1)
                values.setdefault(label, {})
                values[label][int(i)] = values[label].get(int(i), 0) + int(v)
    return times, values


def stats(times, series):
    n = len(times)
    v = [series.get(i, 0) for i in range(n)]
    integral = 0.0
    for i in range(n - 1):
        integral += (v[i] + v[i + 1]) / 2 * (times[i + 1] - times[i])
    mt = sum(times) / n
    mv = sum(v) / n
    var_t = sum((t - mt) ** 2 for t in times) / n
    var_v = sum((x - mv) ** 2 for x in v) / n
    cov = sum((t - mt) * (x - mv) for t, x in zip(times, v)) / n
    slope = cov / var_t if var_t > 0 else 0.0
    r2 = cov * cov / (var_t * var_v) if var_t > 0 and var_v > 0 else 0.0
    return {
        "size": integral / 2**20,
        "stddev": math.sqrt(var_v),
        "slope": slope,
        "intercept": mv - slope * mt,
        "r2": r2,
    }


def close(a, b, scale):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-9 * scale


def main():
    canon, report = sys.argv[1], sys.argv[2]
    nbands = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    times, values = read_canonical(canon)
    with open(report, encoding="utf-8") as f:
        d = json.load(f)
    T, S = d["table"], d["strings"]
    assert d["profile"]["meta"]["samples"] == len(times), "census count differs"
    assert T["n"] == len(values), "band count differs: %d vs %d" % (T["n"], len(values))
    bad = 0
    for r in range(min(nbands, T["n"])):
        key = S[T["key"][r]]
        mine = stats(times, values[key])
        scale = max(abs(mine["intercept"]), mine["stddev"], 1.0)
        for k, want in mine.items():
            got = T[k][r]
            ok = close(got, want, scale if k != "r2" else 1.0)
            bad += not ok
            print("%s %-10s rtscope %-22.12g independent %-22.12g %s"
                  % (S[T["label"][r]], k, got, want, "ok" if ok else "MISMATCH"))
    sys.exit(1 if bad else 0)


main()
