#!/usr/bin/env python3
"""Send one raw HTTP request, as a broken or hostile client would, and print
the status code of the answer (or "closed" when the server closes without
one), for the tests of what rtscope's HTTP servers answer.

  http-raw.py URL REQUEST

URL gives the host and port (http://HOST:PORT/...); REQUEST is the request
as bytes with Python escapes (\\r\\n), where {URL:N} and {HDR:N} stand for
N bytes of filler (a request target of N characters, a header of N bytes).
The server may answer before it has read the request (a request too big):
what it sent is still read after the send fails.
"""
import re
import socket
import sys
import urllib.parse


def expand(template):
    raw = template.encode().decode("unicode_escape").encode("latin-1")

    def fill(m):
        n = int(m.group(2))
        return b"/" + b"a" * (n - 1) if m.group(1) == b"URL" else b"X-Big: " + b"b" * n

    return re.sub(rb"\{(URL|HDR):(\d+)\}", fill, raw)


def main():
    url = urllib.parse.urlsplit(sys.argv[1])
    req = expand(sys.argv[2])
    s = socket.create_connection((url.hostname, url.port), timeout=10)
    try:
        s.sendall(req)
    except OSError:
        pass  # answered and closed while we sent: read what came
    got = b""
    try:
        while b"\r\n" not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", got)
    print(m.group(1).decode() if m else "closed")


if __name__ == "__main__":
    main()
