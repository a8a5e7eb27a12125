# shellcheck shell=bash
# Predicates of the snapshot area (heap snapshots the program takes of
# itself: +RTS --heap-snapshot-*). Sourced by the driver with the general
# ones (predicates.sh).

# snaps_are DIR WHY N: DIR holds exactly N complete snapshots named
# PROG.PID.K.WHY.rsnap (K = 1..N in order of their taking), and no .tmp
snaps_are() {
    local dir=$1 why=$2 n=$3 got
    got=$(find "$dir" -maxdepth 1 -name "*.$why.rsnap" | wc -l)
    [ "$got" = "$n" ] || { echo "$got snapshots '$why' in $dir, not $n"; ls -la "$dir"; return 1; }
    if find "$dir" -maxdepth 1 -name '*.tmp' | grep . >/dev/null; then echo "a .tmp is left in $dir"; return 1; fi
}

# snap_of DIR WHY K: the path of the K-th snapshot WHY in DIR
snap_of() { find "$1" -maxdepth 1 -name "*.*.$3.$2.rsnap" | head -1; }

# max_sample_bands EVENTS: the bands (name bytes) of the largest heap sample of a ghc-events-check output
max_sample_bands() {
    awk '$1 == "value" {t[$2] += $4} END {m = -1; for (s in t) if (t[s] > m) {m = t[s]; b = s}; print b}' "$1" |
        { read -r s; awk -v s="$s" '$1 == "value" && $2 == s {print $3, $4}' "$1"; }
}

# bands_within_pct A B PCT MIN: every band of A (name bytes) over MIN bytes is in B within PCT percent,
# and so is every band of B over MIN bytes in A
bands_within_pct() {
    awk -v pct="$3" -v min="$4" 'FNR == NR {a[$1] = $2; next} {b[$1] = $2}
        END {bad = 0
             for (k in a) if (a[k] > min && (!(k in b) || (b[k] - a[k]) ^ 2 > (pct / 100 * a[k]) ^ 2)) {print "band " k ": " a[k] " vs " b[k]; bad = 1}
             for (k in b) if (b[k] > min && !(k in a)) {print "band " k ": only in the second (" b[k] ")"; bad = 1}
             exit bad}' "$1" "$2"
}

# census_bands SNAP: `rtscope debug census SNAP --by band` as lines "band bytes"
census_bands() { "$RTSCOPE" debug census "$1" --by band | awk '/^ +[0-9]+ +[0-9]+  /{print $3, $2}'; }

# stock_overflow_lines ERR: the lines a program dying of heap overflow prints, as stock GHC prints them
stock_overflow_lines() { grep -v '^rtscope: ' "$1"; }

# usr1_until_exit DIR: "$EXE grow 300 2000" with --heap-snapshot-signal=USR1 into DIR (stderr in exit.err), sent USR1
# every 30 ms from 0.2 s after its start until it has exited; it exits 0
usr1_until_exit() {
    mkdir -p "$1"
    $ENTER "$EXE" grow 300 2000 +RTS --heap-snapshot-signal=USR1 --heap-snapshot-dir="$1" -RTS > exit.out 2> exit.err &
    local p=$! name
    name=$(basename "$EXE")
    # through $ENTER the program is exec'd last: signal it, not a wrapper
    wait_until 10 sh -c '[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]' sh "$p" "${name:0:15}" || true
    sleep 0.2
    while kill -0 "$p" 2>/dev/null; do kill -USR1 "$p" 2>/dev/null || true; sleep 0.03; done
    wait "$p"
}

# snaps_hold_entries DIR N: every snapshot in DIR (at least one) holds at least N main:Main:Entry closures
snaps_hold_entries() {
    local f n k=0
    for f in "$1"/*.rsnap; do
        [ -f "$f" ] || return 1
        n=$("$RTSCOPE" debug census "$f" | awk '/  main:Main:Entry$/ {print $1}')
        echo "$f: ${n:-0} entries"
        [ "${n:-0}" -ge "$2" ] || return 1
        k=$((k + 1))
    done
    [ "$k" -ge 1 ]
}

# snaps_at_most_of_heap ERR RATIO: every "heap snapshot ... written" line of ERR (at least one) says a file of at
# most RATIO times the MB of heap it holds ("... 41.2 MB of heap, 7.1 MB, ...")
snaps_at_most_of_heap() {
    grep 'heap snapshot (.*) written' "$1" | awk -v r="$2" '
        { match($0, /[0-9.]+ MB of heap/); h = substr($0, RSTART, RLENGTH) + 0
          match($0, /heap, [0-9.]+ [MKG]?B/); f = substr($0, RSTART + 6, RLENGTH - 6)
          u = f; sub(/^[0-9.]+ /, "", u); f += 0
          if (u == "KB") f /= 1000; else if (u == "GB") f *= 1000; else if (u == "B") f /= 1e6
          printf "heap %.1f MB, file %.2f MB (%.2f)\n", h, f, f / h; n++; if (f > r * h) bad++ }
        END { exit (n == 0 || bad > 0) }'
}
