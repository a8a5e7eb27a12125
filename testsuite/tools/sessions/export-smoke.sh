#!/bin/sh
# rtscope export and rtscope live on replayed, restarted, garbage and
# corrupt eventlog sockets, with /metrics scrapes, control requests and an
# unreachable InfluxDB, then SIGTERM: for the ASan/UBSan build (any report
# aborts, leaks fail the run) and for valgrind (WRAP="valgrind ...").
# usage: export-smoke.sh RTSCOPE WORKDIR
set -u
R=$1
W=$2
WRAP=${WRAP:-}
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../clients/consumer-eventlog.sh" "$W/logs" || exit 1
W=$(cd "$W" && pwd)
fail=0
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
log=$W/logs/thr.eventlog
head -c 4000 /dev/urandom > "$W/garbage"
head -c 3000 "$log" > "$W/corrupt"; head -c 3000 /dev/urandom >> "$W/corrupt"
rm -f "$W"/*.sock
python3 "$here/../clients/serve-eventlog.py" --file "$log" --unix "$W/good.sock" --connections 3 &
s1=$!
python3 "$here/../clients/serve-eventlog.py" --file "$W/garbage" --unix "$W/garbage.sock" --connections 50 &
s2=$!
python3 "$here/../clients/serve-eventlog.py" --file "$W/corrupt" --unix "$W/corrupt.sock" --connections 50 &
s3=$!
python3 "$here/../clients/serve-eventlog.py" --file "$log" --unix "$W/cut.sock" --cut $(( $(wc -c < "$log") / 2 )) --connections 5 &
s4=$!
sleep 0.5
ep=$(port); dead=$(port); : > "$W/m.txt"
$WRAP "$R" export "unix:$W/good.sock" "unix:$W/garbage.sock" "unix:$W/corrupt.sock" \
    "unix:$W/cut.sock" "$W/garbage" "tcp:127.0.0.1:$dead" --backoff 0.3 --bands 3 \
    --prometheus "127.0.0.1:$ep" --influx "http://127.0.0.1:$dead" --influx-queue 8k \
    --influx-backoff 0.5 --forget 1 2>"$W/export.err" &
ex=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
    sleep 0.5
    curl -fsS "127.0.0.1:$ep/metrics" >>"$W/m.txt" 2>/dev/null || true
    curl -fsS -X POST "127.0.0.1:$ep/control/request-heap-census" >/dev/null 2>&1 || true
    curl -fsS -X POST "127.0.0.1:$ep/control/bogus" >/dev/null 2>&1 || true
    curl -fsS "127.0.0.1:$ep/nothere" >/dev/null 2>&1 || true
done
grep -q '^ghc_heap_size_bytes' "$W/m.txt" || { echo "FAIL: no program metrics in /metrics"; fail=1; }
kill -TERM $ex
wait $ex
rc=$?
[ $rc = 0 ] || { echo "FAIL: rtscope export exited $rc"; cat "$W/export.err"; fail=1; }
kill $s1 $s2 $s3 $s4 2>/dev/null
wait $s1 $s2 $s3 $s4 2>/dev/null
# live, in a terminal, on a replayed socket; quit with q
if command -v tmux >/dev/null 2>&1; then
    rm -f "$W/good.sock"
    python3 "$here/../clients/serve-eventlog.py" --file "$log" --unix "$W/good.sock" --connections 2 &
    s1=$!
    sleep 0.3
    tmux -L rtscope-smoke-$$ new-session -d -x 120 -y 40 \
        "$WRAP $R live unix:$W/good.sock unix:$W/garbage.sock 2>$W/live.err; echo \$? > $W/live.rc"
    sleep 2
    tmux -L rtscope-smoke-$$ send-keys c p s Tab Tab
    sleep 1
    tmux -L rtscope-smoke-$$ send-keys q
    for _ in $(seq 100); do [ -s "$W/live.rc" ] && break; sleep 0.1; done
    tmux -L rtscope-smoke-$$ kill-server 2>/dev/null
    [ "$(cat "$W/live.rc" 2>/dev/null)" = 0 ] || { echo "FAIL: rtscope live exited $(cat "$W/live.rc" 2>/dev/null)"; cat "$W/live.err"; fail=1; }
    rm -f "$W/live.rc"
    kill $s1 2>/dev/null; wait $s1 2>/dev/null
fi
$WRAP "$R" help export >/dev/null || fail=1
$WRAP "$R" help live >/dev/null || fail=1
[ $fail = 0 ] && echo "export-smoke: ok"
exit $fail
