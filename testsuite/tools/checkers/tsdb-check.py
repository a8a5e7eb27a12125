#!/usr/bin/env python3
"""tsdb-check.py CHECK ARGS...: assertions on the JSON answers of InfluxDB
(export-env influxq) and Prometheus (export-env promq) for the export cases.
Each check prints what it saw and exits non-zero unless it holds.

InfluxDB (the first series of the first result):
  influx-value [--or-0] [--at-least X | --above X] FILE
      print the first row's first value (0 with --or-0 when there are no rows)
  influx-rows [--or-0] FILE       print the number of rows
  influx-numbered [--may-be-empty] FILE
      the rows' first values are 1, 2, ... N (N >= 1 unless --may-be-empty)
  influx-rows-sorted FILE LO HI   LO <= rows <= HI, in time order
  influx-rts-memory FILE          rows of SELECT heap_size, blocks_size,
      mem_current, mem_returned_total: every blocks size above 0 and at most
      the heap size; some rows (those after a major GC) have a memory-returned
      total, never decreasing, with at least 1 MiB held
  influx-tag-values FILE V...     the tag values are V... (in any order)
Prometheus:
  prom-one FILE (--above X | --at-least X)   one series, its value above/at least X
  prom-value-between FILE LO HI   the first series' value is an integer in [LO, HI]
  prom-rises FILE                 one range series that rises: at least 3 distinct
      values, never falling before its maximum (at least 3 distinct values up
      to it, at index 2 or later), and a maximum above 1.5 times the first value
  prom-blocks-within-heap BLOCKS HEAP
      range series of blocks size and heap size: at least 3 blocks points, each
      above 0, and each at most the heap size at the same time or the scrape
      before (at least 3 such pairs)
  prom-success FILE               the query was accepted (status success)
  grafana-exprs DASHBOARD         print each panel target's expression, with
      $program and $pid as .*
"""
import json
import sys


def influx_result(path):
    return json.load(open(path))["results"][0]


def influx_values(path, may_be_empty=False):
    r = influx_result(path)
    if may_be_empty and "series" not in r:
        return []
    return r["series"][0]["values"]


def prom_result(path):
    return json.load(open(path))["data"]["result"]


def flag(args, name):
    if name in args:
        args.remove(name)
        return True
    return False


def option(args, name):
    if name in args:
        i = args.index(name)
        v = float(args[i + 1])
        del args[i:i + 2]
        return v
    return None


def main():
    check, args = sys.argv[1], sys.argv[2:]
    if check == "influx-value":
        or0 = flag(args, "--or-0")
        least, above = option(args, "--at-least"), option(args, "--above")
        r = influx_result(args[0])
        v = r["series"][0]["values"][0][1] if (not or0 or "series" in r) else 0
        print(v)
        if least is not None:
            assert v >= least, v
        if above is not None:
            assert v > above, v
    elif check == "influx-rows":
        or0 = flag(args, "--or-0")
        print(len(influx_values(args[0], or0)))
    elif check == "influx-numbered":
        empty = flag(args, "--may-be-empty")
        v = [x[1] for x in influx_values(args[0], empty)]
        print(v)
        assert v == list(range(1, len(v) + 1)), v
    elif check == "influx-rows-sorted":
        v = influx_values(args[0])
        lo, hi = int(args[1]), int(args[2])
        print(len(v), "rows")
        assert lo <= len(v) <= hi, len(v)
        t = [x[0] for x in v]
        assert t == sorted(t)
    elif check == "influx-rts-memory":
        v = influx_values(args[0])
        print(len(v), "ghc_rts points, blocks size", [x[2] for x in v])
        assert all(x[1] is not None and x[2] is not None for x in v), v
        assert all(0 < x[2] <= x[1] for x in v), v
        m = [x for x in v if x[4] is not None]
        assert m and all(x[3] >= 1048576 and x[4] >= 0 for x in m), v
        r = [x[4] for x in m]
        assert r == sorted(r), r
    elif check == "influx-tag-values":
        v = sorted(x[1] for x in influx_values(args[0]))
        print(v)
        assert v == sorted(args[1:]), v
    elif check == "prom-one":
        least, above = option(args, "--at-least"), option(args, "--above")
        r = prom_result(args[0])
        assert len(r) == 1, r
        print(r[0]["metric"], r[0]["value"][1])
        if least is not None:
            assert float(r[0]["value"][1]) >= least, r
        if above is not None:
            assert float(r[0]["value"][1]) > above, r
    elif check == "prom-value-between":
        r = prom_result(args[0])
        n = int(r[0]["value"][1])
        print(n)
        assert int(args[1]) <= n <= int(args[2]), n
    elif check == "prom-rises":
        r = prom_result(args[0])
        assert len(r) == 1, r
        v = [float(x[1]) for x in r[0]["values"]]
        print(len(v), v[0], v[-1])
        assert len(set(v)) >= 3, v
        i = v.index(max(v))
        assert i >= 2 and len(set(v[:i + 1])) >= 3 and all(a <= b for a, b in zip(v[:i], v[1:i + 1])), v
        assert max(v) > v[0] * 1.5, v
    elif check == "prom-blocks-within-heap":
        b, h = prom_result(args[0]), prom_result(args[1])
        assert len(b) == 1 and len(h) == 1, (b, h)
        hv = dict((x[0], float(x[1])) for x in h[0]["values"])
        bv = [(x[0], float(x[1])) for x in b[0]["values"]]
        print(len(bv), "blocks size points, max", max(v for _, v in bv))
        assert len(bv) >= 3
        assert all(v > 0 for _, v in bv), bv
        ts = sorted(hv)
        prev = dict(zip(ts[1:], ts))
        both = [(v, max(hv[t], hv.get(prev.get(t), 0))) for t, v in bv if t in hv]
        assert len(both) >= 3 and all(v <= w for v, w in both), both
    elif check == "prom-success":
        r = json.load(open(args[0]))
        assert r["status"] == "success", r
    elif check == "grafana-exprs":
        d = json.load(open(args[0]))
        print("\n".join(t["expr"].replace("$program", ".*").replace("$pid", ".*")
                        for p in d["panels"] for t in p["targets"]))
    else:
        print("tsdb-check.py: unknown check " + check, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
