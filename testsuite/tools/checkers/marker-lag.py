#!/usr/bin/env python3
"""marker-lag: how long after a program posted each marker a reader shows it.

    marker-lag.py OUT -- CMD...

Runs CMD (a reader such as `rtscope show unix:S`) and stamps each line of its
standard output with the wall clock as it arrives. A line that contains
`tick N at MICROS` (testsuite/programs/QuietTicks.hs names the time it
posted the marker) gives a lag: arrival minus MICROS. Writes one line per
marker to OUT ("N LAG_MS") and prints the count, p50, p95 and max in ms.
Exit status: CMD's. Stops CMD when its input ends.
"""
import re
import subprocess
import sys
import time

TICK = re.compile(rb"tick (\d+) at (\d+)")


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: marker-lag.py OUT -- CMD...")
    out, cmd = sys.argv[1], sys.argv[3:]
    lags = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, bufsize=0) as p, \
            open(out, "w") as f:
        for line in iter(p.stdout.readline, b""):
            now = time.time() * 1e6
            m = TICK.search(line)
            if m:
                lag = (now - int(m.group(2))) / 1000.0
                lags.append(lag)
                f.write("%s %.1f\n" % (m.group(1).decode(), lag))
                f.flush()
        rc = p.wait()
    lags.sort()
    if lags:
        def pct(q):
            return lags[min(len(lags) - 1, int(q * len(lags)))]
        print("markers %d p50 %.0f ms p95 %.0f ms max %.0f ms"
              % (len(lags), pct(0.5), pct(0.95), lags[-1]))
    else:
        print("markers 0")
    sys.exit(rc)


if __name__ == "__main__":
    main()
