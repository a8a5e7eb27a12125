# shellcheck shell=bash
# testsuite/tools/predicates/flush.sh: predicates of eventlog flushing: what
# is on disk while a program runs, restarts. Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

# snapshot_while_running PID FILE COPY: copy FILE to COPY, and PID was still running after the copy
snapshot_while_running() { cp "$2" "$3" && kill -0 "$1"; }

# samples_between_markers SUMMARY: a flushcheck summary has at least 3 heap samples, markers "start" and "stop", and every sample between them
# (a -i0.05 timer over 1 s of work takes up to 20; -N2 beside another program 4: each census waits for a GC of both capabilities)
samples_between_markers() {
    awk '$1=="marker"&&$3=="start"{s=$4} $1=="marker"&&$3=="stop"{e=$4} $1=="sample_ns"{t[n++]=$2} END{if(n<3||s==""||e=="")exit 1; for(i=0;i<n;i++) if(t[i]<s||t[i]>e) exit 1}' "$1"
}

# samples_while_running PID EVENTLOG T0: every 0.25 s (40 times at most) while PID runs, copy EVENTLOG (snap.eventlog)
# and append "MS SAMPLES" to polls.txt: the copy's time in ms since T0 ($EPOCHREALTIME) and the heap samples in its
# complete prefix; the prefix with the most is best.eventlog
samples_while_running() {
    local best=0 s now
    : > polls.txt
    for _ in $(seq 40); do
        sleep 0.25
        [ -s "$2" ] || continue
        now=$EPOCHREALTIME
        cp "$2" snap.eventlog || return 1
        kill -0 "$1" 2>/dev/null || break
        flushcheck snap.eventlog prefix.eventlog > snap.txt || return 1
        s=$(awk '$1=="samples"{print $2}' snap.txt) || return 1
        echo "$(( (${now/./} - ${3/./}) / 1000 )) $s" >> polls.txt
        if [ "$s" -gt "$best" ]; then
            best=$s
            cp prefix.eventlog best.eventlog || return 1
        fi
    done
}

# copy_mid_run [-i SECS] OUT WORD WAIT EVENTLOG COPY CMD...: run CMD (stdout OUT) in the background; once OUT has WORD
# (5 s
# at most, polled every -i SECS, default 0.1) and WAIT s more, copy EVENTLOG to COPY while CMD still runs; CMD then
# exits 0
copy_mid_run() {
    local every=0.1 out word secs ev copy pid
    if [ "$1" = -i ]; then every=$2; shift 2; fi
    out=$1 word=$2 secs=$3 ev=$4 copy=$5
    shift 5
    "$@" > "$out" &
    pid=$!
    wait_at_most -i "$every" 5 grep -q "$word" "$out"
    sleep "$secs"
    snapshot_while_running "$pid" "$ev" "$copy" || { echo "$copy: not copied while $* ran" >&3; wait "$pid"; return 1; }
    wait "$pid"
}

# samples_seen_mid_run OUT EVENTLOG LAG CMD...: while CMD (stdout OUT) runs, each copy of EVENTLOG taken (every 0.25 s,
# samples_while_running) holds, in its complete prefix, every heap sample of the finished log that began more than LAG
# seconds before the copy (times from CMD's start: the RTS's clock starts later, which only makes the demand
# stricter); at least one copy must have been due 2 samples, and CMD exits 0. Load-proof where a count is not: a busy
# -N2 program beside others takes censuses at a rate the machine sets, and is judged only on what it had posted.
samples_seen_mid_run() {
    local out=$1 ev=$2 lag=$3 pid t0
    shift 3
    t0=$EPOCHREALTIME
    "$@" > "$out" &
    pid=$!
    samples_while_running "$pid" "$ev" "$t0" || { wait "$pid"; return 1; }
    wait "$pid" || return 1
    flushcheck "$ev" /dev/null > final.txt || return 1
    awk -v lag="$lag" 'NR==FNR { if ($1 == "sample_ns") t[n++] = $2 / 1e6; next }
        { due = 0; for (i = 0; i < n; i++) if (t[i] < $1 - lag * 1000) due++
          if (due > most) most = due
          if ($2 < due) { printf "copy at %.2f s holds %d samples, %d began over %s s before it\n", $1 / 1000, $2, due, lag; bad = 1 } }
        END { printf "%d copies while running; up to %d samples due in one, all there: %s\n", FNR, most, bad ? "no" : "yes"
              if (most < 2) print "too few samples were due to judge"
              exit bad || most < 2 }' final.txt polls.txt >&3
}

# flush_interval_refused VALUE...: `$EXE 0 +RTS --eventlog-flush-interval=VALUE` exits 1 with the bad-value message,
# for each VALUE (out, err)
flush_interval_refused() {
    local v rc
    for v in "$@"; do
        rc=0
        "$EXE" 0 +RTS "--eventlog-flush-interval=$v" -RTS > out 2> err || rc=$?
        [ $rc = 1 ] || { echo "value '$v': exit $rc" >&3; return 1; }
        grep -q 'bad value for --eventlog-flush-interval' err || { echo "value '$v'" >&3; cat err >&3; return 1; }
    done
}

# streams_complete N KEY...: there are exactly N stream-*.eventlog here, each complete and with each init event KEY
# once (stream_complete)
streams_complete() {
    local n=$1 f
    shift
    [ "$(ls stream-*.eventlog | wc -l)" = "$n" ] || { echo "not $n streams: $(ls stream-*.eventlog | wc -l)" >&3; return 1; }
    for f in stream-*.eventlog; do
        stream_complete "$f" "$@" || return 1
    done
}

# streams_start_with KEY...: every stream-*.eventlog here begins with the init events KEY (stream_starts_with, after
# streams_complete)
streams_start_with() {
    local f
    for f in stream-*.eventlog; do
        stream_starts_with "$f" "$@" || return 1
    done
}
