#!/bin/sh
# Run every rtscope subcommand on real, truncated, corrupt and empty
# eventlogs and check the exit codes: used with the ASan/UBSan build
# (make -C consumer asan), where any sanitizer report aborts the run.
# usage: consumer-smoke.sh RTSCOPE WORKDIR
set -u
R=$1
W=$2
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../clients/consumer-eventlog.sh" "$W/logs" || exit 1
fail=0
expect() {
    want=$1; shift
    "$@" >/dev/null 2>"$W/err"
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL (exit $got, want $want): $*"; cat "$W/err"; fail=1
    fi
}
for log in "$W/logs/alloc.eventlog" "$W/logs/thr.eventlog"; do
    expect 0 "$R" show "$log"
    expect 0 "$R" stats "$log"
    expect 0 "$R" stats --canonical "$log"
    expect 0 "$R" ipe "$log"
    expect 0 "$R" hp -o "$W/out.hp" "$log"
    expect 0 "$R" html -o "$W/out.html" "$log"
    expect 0 "$R" html -p --json "$W/out.hp"
    expect 0 "$R" diff --json "$log" "$W/out.hp"
    expect 0 "$R" pprof -o "$W/out.pb.gz" "$log"
    expect 0 "$R" pprof --last --base "$W/out.hp" -o "$W/d.pb.gz" "$log"
    expect 0 sh -c "cat '$log' | '$R' pprof --at 0.5 -o '$W/pipe.pb.gz' -"
    expect 0 sh -c "cat '$log' | '$R' show -"
    expect 0 sh -c "cat '$log' | '$R' stats --merge-buffer=4K -"
    size=$(wc -c < "$log")
    for cut in 7 100 3000 $((size / 3)) $((size / 2)) $((size - 1)); do
        head -c "$cut" "$log" > "$W/cut"
        if [ "$cut" -lt 3000 ]; then want=1; else want=0; fi
        expect $want "$R" stats "$W/cut"
        expect $want sh -c "'$R' show - < '$W/cut'"
        expect $want sh -c "cat '$W/cut' | '$R' hp -o '$W/cut.hp' -"
    done
done
: > "$W/empty"
expect 1 "$R" stats "$W/empty"
head -c 4000 /dev/urandom > "$W/garbage"
expect 1 "$R" show "$W/garbage"
expect 1 "$R" pprof -o "$W/garbage.pb.gz" "$W/garbage"
# The garbage must outlast any event size it may claim (a u16): with only a
# few KB, a claimed size past the end is a truncated log, which is exit 0.
head -c 6000 "$W/logs/alloc.eventlog" > "$W/hdrgarbage"
head -c 70000 /dev/urandom >> "$W/hdrgarbage"
expect 1 "$R" stats "$W/hdrgarbage"
expect 1 sh -c "cat '$W/hdrgarbage' | '$R' stats -"
expect 2 "$R" stats
expect 2 "$R" nosuchcommand
expect 0 "$R" help hp
if [ $fail = 0 ]; then echo "consumer smoke: all exit codes as expected"; fi
exit $fail
