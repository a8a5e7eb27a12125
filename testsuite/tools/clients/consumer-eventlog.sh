#!/bin/sh
# Make real eventlogs for the consumer's sanitizer and valgrind runs:
#   OUTDIR/alloc.eventlog  (ConsumerAlloc, -hT -l, non-threaded)
#   OUTDIR/thr.eventlog    (ConsumerAlloc, -threaded -N2 -l -hT)
# Uses the stock /usr/bin/ghc; does nothing if both files exist.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
prog=$here/../../programs/ConsumerAlloc.hs
GHC=${GHC:-/usr/bin/ghc}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out"
if [ ! -s alloc.eventlog ]; then
    "$GHC" -v0 -O1 -eventlog -rtsopts -outputdir obj-v "$prog" -o alloc
    ./alloc 8 5000 +RTS -hT -i0.005 -l -ol"$out/alloc.eventlog" -RTS >/dev/null
fi
if [ ! -s thr.eventlog ]; then
    "$GHC" -v0 -O1 -eventlog -threaded -rtsopts -outputdir obj-thr "$prog" -o thr
    ./thr 8 5000 +RTS -N2 -hT -i0.005 -l -ol"$out/thr.eventlog" -RTS >/dev/null
fi
