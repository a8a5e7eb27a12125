# shellcheck shell=bash
# testsuite/tools/predicates/eventlog.sh: predicates of eventlogs: rtscope's
# reading, the checkers', stream completeness, the eventlog API from every
# calling convention (EventlogCalls), fork. Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

# eventlog_stat NAME EVENTLOG: the value `rtscope stats` prints for NAME ("heap samples", "markers")
eventlog_stat() { rtscope stats "$2" | sed -n "s/^$1: //p"; }

# eventlog_header_bytes EVENTLOG: the size of its header (the offset of its first block)
eventlog_header_bytes() { rtscope show --offsets --blocks "$1" | sed -n '1s/^@\([0-9]*\).*/\1/p'; }

# canon_count CANON TYPE: how many events of TYPE a canonical summary (rtscope stats --canonical, GhcEventsCheck) counts
canon_count() { awk -v t="$2" '$1=="event" && $2==t {print $3}' "$1"; }

# flushcheck ARGS...: checkers/flushcheck (FlushCheck.hs's summary of an eventlog)
flushcheck() { "$TESTSUITE/tools/checkers/flushcheck" "$@"; }

# stream_complete FILE KEY...: FILE parses (flushcheck, summary in FILE.txt), ends with the end-of-data marker
# and holds each init event KEY exactly once
stream_complete() {
    local f=$1 k
    shift
    flushcheck "$f" > "$f.txt" || { echo "$f"; return 1; }
    grep -qx 'end data-end' "$f.txt" || { echo "$f: no end-of-data marker"; return 1; }
    for k in "$@"; do
        grep -qx "count $k 1" "$f.txt" || { echo "$f: $k"; return 1; }
    done
}

# stream_starts_with FILE KEY...: the init events FILE begins with (FILE.txt, from stream_complete) include each KEY
stream_starts_with() {
    local f=$1 lead k
    shift
    lead=$(sed -n 's/^leading_init //p' "$f.txt") || return 1
    for k in "$@"; do
        [[ " $lead " == *" $k "* ]] || { echo "$f: $k not at start: $lead"; return 1; }
    done
}

# calls_run DIR RTS-FLAGS ARG...: run $EXE ARG... +RTS RTS-FLAGS in DIR (stdout, stderr there); 30 s at most:
# a hang fails, and so does a non-zero exit
calls_run() {
    local d=$1 rtsf=$2 rc=0
    shift 2
    mkdir -p "$d"
    # shellcheck disable=SC2086
    (cd "$d" && timeout 30 $ENTER "$EXE" "$@" +RTS $rtsf -RTS >stdout 2>stderr) || rc=$?
    [ "$rc" = 0 ] || { echo "$d: $* +RTS $rtsf: exit $rc$([ $rc = 124 ] && echo ' (hung)'): $(head -c 300 "$d/stderr")"; return 1; }
}

# steps_are FILE 'STEP RESULT'...: FILE (EventlogCalls' stdout) has each line 'STEP RESULT', then "done"
steps_are() {
    local f=$1 l
    shift
    for l in "$@"; do
        grep -qx "$l" "$f" || { echo "$f: step ${l%% *}: $(grep "^${l%% *} " "$f" || echo missing), wanted $l"; return 1; }
    done
    grep -qx 'done' "$f" || { echo "$f: no 'done': $(tail -1 "$f")"; return 1; }
}

# steps_ok FILE STEP...: FILE says "STEP 1" for each STEP, then "done"
steps_ok() {
    local f=$1 s l=()
    shift
    for s in "$@"; do l+=("$s 1"); done
    steps_are "$f" "${l[@]}"
}

# writer_streams N: eventlog_calls.c's writer (writer.log, here) was given exactly N streams, each called init first
# and stop last, and each stream-K.eventlog is complete and begins with its init events
writer_streams() {
    local k calls
    for k in $(seq 0 $(($1 - 1))); do
        calls=$(awk -v k="$k" '$2 == k { print $1 }' writer.log | sed -n '1p;$p' | tr '\n' ' ')
        [ "$calls" = "init stop " ] || { echo "stream $k: $(grep " $k\$" writer.log | tr '\n' ' ')"; return 1; }
        stream_complete "stream-$k.eventlog" wallclock pid heapinfo
        # (9.6 re-posts no capability creation, and its init events' block may follow a capability's in the file)
        [ "$TIER" != 9.0 ] || stream_starts_with "stream-$k.eventlog" capcreate wallclock
    done
    [ ! -e "stream-$1.eventlog" ] || { echo "more than $1 streams"; return 1; }
}

# calls_matrix: every step of EventlogCalls through every calling convention of the way (safe and unsafe calls;
# threaded also a foreign thread, each with -N1 and -N2) succeeds, nothing is said on stderr, the marker posted
# before the flush is on disk when flushEventLog() returns, and all three streams (-l's, start, restart) are complete
calls_matrix() {
    local convs=(safe unsafe) ns=("") conv n steps
    if [[ "$WAY" == *thr* ]]; then convs+=(thread); ns=(-N1 -N2); fi
    for n in "${ns[@]}"; do
        for conv in "${convs[@]}"; do
            # -l: the start-up stream (to the file) has every event class; the first step ends it
            steps="end start census timer-stop timer-start flush end start socket"
            if [[ "$WAY" == *thr* ]]; then
                steps+=" stub"
                [ "$conv" = unsafe ] || steps+=" pause stub-pause"
            fi
            # -i5: no periodic census's GC races the calls (an unsafe call that meets a pending sync is refused, as
            # documented; the late-* runs check that on purpose)
            # shellcheck disable=SC2086
            calls_run "$conv$n" "-l -hT -i5 -A64m $n" "$conv" $steps || return 1
            # shellcheck disable=SC2086
            (cd "$conv$n" && steps_ok stdout $steps && writer_streams 2 && stream_complete EventlogCalls.eventlog) \
                || { echo "in $conv$n"; return 1; }
            [ ! -s "$conv$n/stderr" ] || { echo "$conv$n: stderr: $(head -c 300 "$conv$n/stderr")"; return 1; }
            flushcheck "$conv$n/flushed.eventlog" | grep >/dev/null '^marker before flush' \
                || { echo "$conv$n: the marker posted before flushEventLog() is not in the flushed file"; return 1; }
        done
    done
}

# fork_eventlogs_complete STDOUT: ForkChild's parent eventlog (here) and its child's (ForkChild.PID.eventlog, the
# pid from STDOUT's second-last line) are complete, each with its own markers and not the other's
fork_eventlogs_complete() {
    local pid
    pid=$(tail -2 "$1" | head -1)
    stream_complete ForkChild.eventlog wallclock
    stream_complete "ForkChild.$pid.eventlog"
    grep -q '^marker parent after fork' ForkChild.eventlog.txt || { echo "parent: no marker"; return 1; }
    grep -q '^marker in the child' "ForkChild.$pid.eventlog.txt" || { echo "child: no marker"; return 1; }
    ! grep -q '^marker in the child' ForkChild.eventlog.txt || { echo "the child's marker in the parent's eventlog"; return 1; }
}
