# shellcheck shell=bash
# testsuite/tools/predicates/export.sh: predicates of the exporter, Prometheus
# and InfluxDB. Sourced after testsuite/tools/predicates.sh (its rules hold
# here).

# export_env CMD...: clients/export-env (services, ports and queries of the export and live cases)
export_env() { "$TESTSUITE/tools/clients/export-env" "$@"; }

# tsdb_check CHECK FILE...: checkers/tsdb-check.py, assertions on Prometheus and InfluxDB answers
tsdb_check() { python3 "$TESTSUITE/tools/checkers/tsdb-check.py" "$@"; }

# followed_pid PROG: the pid of the first run of PROG the exporter followed (from exporter.err)
followed_pid() { grep -o "$1 pid [0-9]*" exporter.err | head -1 | awk '{print $3}'; }

# wait_exporter_follows PROG PID [SECS]: the exporter (exporter.port) reports PROG's run PID up within SECS s (default 20)
wait_exporter_follows() { export_env wait-metric "$(cat exporter.port)" "ghc_up\{program=\"$1\",pid=\"$2\"\} 1" ${3:+"$3"}; }

# metric_is METRICS NAME OP VALUE: Prometheus text METRICS has an unlabelled NAME whose value OP VALUE (awk: == > >=)
metric_is() { awk -v n="$2" -v v="$4" "\$1==n && \$2 $3 v {ok=1} END {exit !ok}" "$1"; }

# poll_influx_drained METRICS: scrape the exporter (exporter.port) into METRICS every 0.25 s, 60 times at most, until its
# InfluxDB queue is empty and it has sent points; a failed scrape fails, running out of tries does not (assert after)
poll_influx_drained() {
    for _ in $(seq 60); do
        export_env scrape "$(cat exporter.port)" > "$1" || return 1
        metric_is "$1" rtscope_influx_queue_points == 0 && metric_is "$1" rtscope_influx_sent_points_total '>' 0 && return 0
        sleep 0.25
    done
    return 0
}

# influx_wait DB QUERY value|rows N OUT: run QUERY (answer in OUT) up to 15 times, 0.2 s apart, until its first value
# (value) or its number of rows (rows) is N, 0 while it has no rows; a failed query fails
influx_wait() {
    local n
    for _ in $(seq 15); do
        export_env influxq "$1" "$2" > "$5" || return 1
        n=$(tsdb_check "influx-$3" --or-0 "$5") || return 1
        [ "$n" = "$4" ] && break
        sleep 0.2
    done
    echo "$3 $n, wanted $4: $2"
    [ "$n" = "$4" ]
}

# census_request_sent PROG PID: POST /control/request-heap-census?pid=PID to the exporter (exporter.port) answers that it
# was sent to PROG's run PID (answer in post.txt)
census_request_sent() {
    curl -fsS -X POST "127.0.0.1:$(cat exporter.port)/control/request-heap-census?pid=$2" | tee post.txt &&
        grep -q "request heap census: $1 (pid $2, .*): sent" post.txt
}

# census_request_refused PID: the same request for a PID the exporter does not follow fails
census_request_refused() {
    ! curl -fsS -X POST "127.0.0.1:$(cat exporter.port)/control/request-heap-census?pid=$1" > /dev/null 2>&1
}

# occupy_port NAME: hold a free port of 127.0.0.1 (its number in NAME.port, once listening) until release_port NAME, 60 s at most
occupy_port() {
    rm -f "$1.port" "$1.done"
    python3 -c 'import os,socket,sys,time; n=sys.argv[1]; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); open(n+".tmp","w").write(str(s.getsockname()[1])); os.rename(n+".tmp",n+".port"); t=time.time(); exec("while not os.path.exists(n+\".done\") and time.time()-t<60: time.sleep(0.05)")' "$1" &
    wait_at_most 30 test -s "$1.port"
}

# release_port NAME: end occupy_port NAME (and wait for the line's background jobs)
release_port() { touch "$1.done"; wait; }

# socket_run [-t SECS] NAME SOCK RTS ARG...: `$EXE ARG... +RTS RTS -l -olNAME.eventlog --eventlog-socket=$T/SOCK
# --eventlog-socket-wait -RTS` in the background (SECS s at most with -t), output NAME.out, pid in NAME.pid
socket_run() {
    local tmo=()
    if [ "$1" = -t ]; then tmo=(timeout "$2"); shift 2; fi
    local n=$1 s=$2 r=$3
    shift 3
    # shellcheck disable=SC2086 # RTS is a list of flags
    "${tmo[@]}" $ENTER "$EXE" "$@" +RTS $r -l -ol"$n".eventlog --eventlog-socket="$T/$s" --eventlog-socket-wait -RTS > "$n.out" 2>&1 &
    echo $! > "$n.pid"
}

# home_socket_run ARGS...: $EXE ARGS +RTS --eventlog-socket (no path) with XDG_DATA_HOME=$XDG, in the background (its
# pid, or $ENTER's, in q.pid, output in q.out); waits until its socket is in the per-user directory and writes the
# socket's path to sock.txt
home_socket_run() {
    XDG_DATA_HOME=$XDG $ENTER "$EXE" "$@" +RTS --eventlog-socket -RTS > q.out 2>&1 &
    echo $! > q.pid
    wait_until 20 sh -c 'ls "$1"/rtscope/eventlog/sockets/*-"$2"' sh "$XDG" "$(basename "$EXE")" > sock.txt
}

# home_socket_more NAME ARGS...: one more run of $EXE ARGS on the per-user socket (home_socket_run's, flushed every
# 0.5 s), in the background, output in NAME.out; the last four digits of its pid in NAME.pid (a screen shows the
# socket's name by its end), the whole pid in NAME.fullpid
home_socket_more() {
    local n=$1
    shift
    XDG_DATA_HOME=$XDG $ENTER "$EXE" "$@" +RTS --eventlog-socket --eventlog-flush-interval=0.5 -RTS > "$n.out" 2>&1 &
    local p=$!
    echo "${p: -4}" > "$n.pid"
    echo "$p" > "$n.fullpid"
}

# metrics_follow_run METRICS PROG PID OLD: Prometheus text METRICS has the heap size of PROG's run PID, and no series
# of the run OLD
metrics_follow_run() {
    grep -q "ghc_heap_size_bytes{program=\"$2\",pid=\"$3\"}" "$1" && fails grep -q "pid=\"$4\"" "$1"
}

# promq_run METRIC [SUFFIX]: the Prometheus query METRIC{program="LeakFeed",pid="PID"}SUFFIX (PID from the file pid);
# prints the JSON
promq_run() { export_env promq "$1{program=\"LeakFeed\",pid=\"$(cat pid)\"}${2:-}"; }

# prom_accepts_all EXPRS: Prometheus answers each query of EXPRS (one a line) with success (q.json, the last answer)
prom_accepts_all() {
    local e
    while IFS= read -r e; do
        export_env promq "$e" > q.json && tsdb_check prom-success q.json || { echo "query: $e" >&3; return 1; }
    done < "$1"
    echo "$(wc -l < "$1") dashboard queries accepted by Prometheus"
}
