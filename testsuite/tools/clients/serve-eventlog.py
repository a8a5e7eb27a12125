#!/usr/bin/env python3
"""Serve an eventlog on a Unix or TCP socket, as the RTS's eventlog socket
does, for the consumer's socket tests.

  serve-eventlog.py --file F (--unix PATH | --tcp PORTFILE) [--cut N]
                    [--connections K] [--chunk BYTES] [--seconds S]

Each of K connections gets the file (or its first N bytes, then the
socket is closed mid-stream). With --tcp the server listens on 127.0.0.1
on a free port and writes the port number to PORTFILE. Exits after K
connections or 20 seconds. With --seconds, each connection gets the file
spread evenly over S seconds (a program that runs that long), and the
server waits up to S + 20 seconds for its connections.
"""
import argparse
import os
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--unix")
    ap.add_argument("--tcp")
    ap.add_argument("--cut", type=int)
    ap.add_argument("--connections", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--seconds", type=float, default=0)
    a = ap.parse_args()
    data = open(a.file, "rb").read()
    if a.cut is not None:
        data = data[: a.cut]
    if a.unix:
        if os.path.exists(a.unix):
            os.unlink(a.unix)
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(a.unix + ".tmp")
        srv.listen(4)
        os.rename(a.unix + ".tmp", a.unix)  # appears only once listening
    else:
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.bind(("127.0.0.1", 0))
        srv.listen(4)
        with open(a.tcp + ".tmp", "w") as f:
            f.write(str(srv.getsockname()[1]))
        os.rename(a.tcp + ".tmp", a.tcp)
    srv.settimeout(20 + a.seconds)
    deadline = time.time() + 20 + a.seconds
    for _ in range(a.connections):
        if time.time() > deadline:
            break
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            break
        try:
            start = time.time()
            for i in range(0, len(data), a.chunk):
                if a.seconds:  # at the pace of a program that runs a.seconds
                    ahead = start + a.seconds * i / len(data) - time.time()
                    if ahead > 0:
                        time.sleep(ahead)
                conn.sendall(data[i : i + a.chunk])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the consumer hung up first: it rejected the stream
        conn.close()
    srv.close()
    if a.unix:
        os.unlink(a.unix)


if __name__ == "__main__":
    sys.exit(main())
