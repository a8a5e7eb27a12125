#!/usr/bin/env python3
"""Read corrupt variants of an eventlog three ways and demand one answer.

  three-ways.py EVENTLOG [--variants N] [--socket-every K] [--seed S]
                [-- RTSCOPE_ARGS...]

Each variant of EVENTLOG (cut short; a run of 0xff bytes, the end-of-data
marker's bytes, written inside the data; a few bytes flipped; trailing
garbage) is given to `rtscope stats --canonical` (or RTSCOPE_ARGS) as a
file, through a pipe (`-`), and every K-th variant also on a Unix socket,
as the RTS's eventlog socket serves it. Standard output, standard error
(with the input's name replaced) and the exit code must be the same all
three ways. Prints how many variants were accepted, accepted with a
warning, and rejected; fails if any way disagrees, or if the variants did
not cover all three outcomes (a check that cannot fail is no check).
"""
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading


def serve(path, data, ready):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    ready.set()
    srv.settimeout(20)
    try:
        conn, _ = srv.accept()
    except OSError:
        srv.close()
        return
    try:
        for i in range(0, len(data), 4096):
            conn.sendall(data[i:i + 4096])
    except OSError:
        pass
    conn.close()
    srv.close()


def run(cmd, spec, stdin_data=None):
    p = subprocess.run(cmd + [spec], input=stdin_data, capture_output=True,
                       timeout=60)
    err = p.stderr.replace(b"rtscope: " + spec.encode() + b":",
                           b"rtscope: INPUT:")
    return p.returncode, p.stdout, err


def variant(data, start, rng, k):
    v = bytearray(data)
    kind = k % 5
    if kind == 0:
        cut = rng.randrange(start, len(v))
        return "cut at %d" % cut, bytes(v[:cut])
    if kind == 1:
        at = rng.randrange(start, len(v) - 2)
        n = rng.randrange(2, 65)
        v[at:at + n] = b"\xff" * n
        return "%d bytes 0xff at %d" % (n, at), bytes(v)
    if kind == 2:
        at = rng.randrange(start, len(v) - 2)
        v[at:at + 2] = b"\xff\xff"
        return "end marker at %d" % at, bytes(v)
    if kind == 3:
        desc = []
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(start, len(v))
            v[at] = rng.randrange(256)
            desc.append(str(at))
        return "bytes changed at " + ",".join(desc), bytes(v)
    n = rng.randrange(1, 200)
    return "%d bytes of garbage appended" % n, bytes(v) + os.urandom(n)


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    path = args[0]
    opts = dict(zip(args[1::2], args[2::2]))
    nvar = int(opts.get("--variants", 300))
    every = int(opts.get("--socket-every", 10))
    rng = random.Random(int(opts.get("--seed", 1)))
    rtscope = os.environ.get("RTSCOPE", "rtscope")
    cmd = [rtscope] + (extra or ["stats", "--canonical"])
    data = open(path, "rb").read()
    # corrupt the data section, not the header: find where it starts
    start = data.find(b"datb") + 4
    if start < 4:
        sys.exit("three-ways: %s has no data section" % path)
    outcomes = {"ok": 0, "warning": 0, "error": 0}
    tmp = tempfile.mkdtemp(prefix="three-ways.")
    for k in range(nvar):
        desc, v = variant(data, start, rng, k)
        f = os.path.join(tmp, "v.eventlog")
        with open(f, "wb") as fh:
            fh.write(v)
        ways = {"file": run(cmd, f), "pipe": run(cmd, "-", v)}
        if k % every == 0:
            sock = os.path.join(tmp, "s%d.sock" % k)
            ready = threading.Event()
            t = threading.Thread(target=serve, args=(sock, v, ready))
            t.start()
            ready.wait(5)
            ways["socket"] = run(cmd, "unix:" + sock)
            t.join()
            os.unlink(sock)
        ref = ways["file"]
        for name, got in ways.items():
            if got != ref:
                print("three-ways: variant %d (%s): %s differs from file" %
                      (k, desc, name))
                for n2, g in ways.items():
                    print("  %s: exit %d, stderr %r, stdout %d bytes" %
                          (n2, g[0], g[2][:300], len(g[1])))
                sys.exit(1)
        if ref[0] != 0:
            outcomes["error"] += 1
        elif ref[2]:
            outcomes["warning"] += 1
        else:
            outcomes["ok"] += 1
    os.unlink(os.path.join(tmp, "v.eventlog"))
    os.rmdir(tmp)
    print("three-ways: %d variants agree as file, pipe and socket "
          "(every %d-th): %d accepted, %d with a warning, %d rejected" %
          (nvar, every, outcomes["ok"], outcomes["warning"],
           outcomes["error"]))
    if min(outcomes.values()) == 0:
        sys.exit("three-ways: the variants did not cover every outcome")


if __name__ == "__main__":
    main()
