#!/bin/sh
# rtscope under valgrind (memcheck) on real eventlogs: no errors, no leaks.
# usage: consumer-valgrind.sh RTSCOPE WORKDIR
set -eu
R=$1
W=$2
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../clients/consumer-eventlog.sh" "$W/logs"
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
for log in "$W/logs/alloc.eventlog" "$W/logs/thr.eventlog"; do
    $VG "$R" stats "$log" >/dev/null
    $VG "$R" stats --canonical "$log" >/dev/null
    $VG "$R" show "$log" >/dev/null
    $VG "$R" hp -o "$W/v.hp" "$log"
    $VG "$R" ipe "$log" >/dev/null
    $VG "$R" stats - < "$log" >/dev/null
    $VG "$R" html -o "$W/v.html" "$log"
    $VG "$R" html --json --bands 0 --sort name --include-trace-events "$log" >/dev/null
    $VG "$R" html -p --json "$W/v.hp" >/dev/null
    $VG "$R" diff -o "$W/d.html" "$log" "$W/v.hp"
    $VG "$R" pprof -o "$W/v.pb.gz" "$log"
    $VG "$R" pprof --at 0.5 --base "$W/v.hp" -o "$W/d.pb.gz" "$log"
    head -c $(( $(wc -c < "$log") / 2 )) "$log" > "$W/half"
    $VG "$R" stats --quiet "$W/half" >/dev/null
done
# -hi with IPE events and hostile strings, generated; no samples at all
G=$(dirname "$R")/tools/gen-eventlog
if [ -x "$G" ]; then
    "$G" --tables 300 --samples 50 --weird "$W/hi.eventlog" 2>/dev/null
    "$G" --no-samples --samples 10 "$W/none.eventlog" 2>/dev/null
    $VG "$R" html -o "$W/hi.html" "$W/hi.eventlog"
    $VG "$R" html --json "$W/none.eventlog" >/dev/null
    $VG "$R" diff --json "$W/hi.eventlog" "$W/none.eventlog" >/dev/null
    $VG "$R" pprof -o "$W/hi.pb.gz" --base "$W/hi.eventlog" --last "$W/hi.eventlog"
    $VG "$R" pprof -o "$W/hi.pb.gz" "$W/hi.eventlog"
    set +e
    $VG "$R" pprof -o "$W/none.pb.gz" "$W/none.eventlog" 2>/dev/null
    rc=$?
    set -e
    [ $rc = 1 ] || { echo "pprof without samples: exit $rc under valgrind"; exit 1; }
fi
head -c 4000 /dev/urandom > "$W/garbage"
set +e
$VG "$R" stats "$W/garbage" >/dev/null 2>&1
rc=$?
set -e
[ $rc = 1 ] || { echo "garbage: exit $rc under valgrind"; exit 1; }
echo "consumer valgrind: clean"
