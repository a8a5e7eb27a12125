# shellcheck shell=bash
# testsuite/tools/predicates.sh: named predicates for the cases' prepare and
# check lines, so a line says what it asserts and the how lives here. The
# driver sources this file before each such line (bash -e -o pipefail, cwd
# $T, the case's environment).
#
# Rules for what goes here: every predicate fails (non-zero) exactly when its
# assertion does not hold. None relies on `set -e` inside it (bash ignores -e
# in a function called from an `&&`/`||` list or after `!`): steps are chained
# with && or return explicitly. Messages meant for the check's log go to fd 3
# (the line's stderr, kept even when the line redirects a predicate's stderr).
# Files a predicate writes in $T are named in its comment.

exec 3>&2

# --- general ---------------------------------------------------------------

# expect_exit N CMD...: run CMD; fail unless it exits with status N
expect_exit() {
    local want=$1 rc=0
    shift
    "$@" || rc=$?
    [ "$rc" -eq "$want" ] && return 0
    echo "expected exit $want, got $rc: $*" >&3
    return 1
}

# fails CMD...: CMD exits non-zero (unlike `! CMD`, which -e never stops at)
fails() { ! "$@"; }

# wait_until [-i SECS] SECS CMD...: run CMD every -i SECS (default 0.1) until it succeeds; fail after SECS s of tries
wait_until() {
    local every=0.1 tries i
    if [ "$1" = -i ]; then every=$2; shift 2; fi
    tries=$(awk -v s="$1" -v i="$every" 'BEGIN {printf "%d", s / i + 0.5}')
    shift
    for ((i = 0; i < tries; i++)); do
        "$@" && return 0
        sleep "$every"
    done
    echo "still false after $tries tries $every s apart: $*" >&3
    return 1
}

# wait_at_most [-i SECS] SECS CMD...: wait_until, but carry on (succeed) when the time is up
wait_at_most() { wait_until "$@" 3>/dev/null || true; }

# not_running PID: no process PID (any more)
not_running() { ! kill -0 "$1" 2>/dev/null; }

# thr_n2: -N2 in the threaded ways, nothing otherwise (for RTS flags)
thr_n2() { if [[ "$WAY" == *thr* ]]; then echo -N2; fi; }

# at_most_ms_since MS START: at most MS milliseconds have passed since START (date +%s%N); prints how many
at_most_ms_since() {
    local ms=$(( ($(date +%s%N) - $2) / 1000000 ))
    echo "$ms ms"
    [ "$ms" -le "$1" ]
}

# ratio_between P S LO HI: LO * S <= P <= HI * S (decimal numbers)
ratio_between() { awk -v p="$1" -v s="$2" -v lo="$3" -v hi="$4" 'BEGIN {exit !(p >= lo * s && p <= hi * s)}'; }

# --- eventlogs ---------------------------------------------------------------

# eventlog_stat NAME EVENTLOG: the value `rtscope stats` prints for NAME ("heap samples", "markers")
eventlog_stat() { rtscope stats "$2" | sed -n "s/^$1: //p"; }

# eventlog_header_bytes EVENTLOG: the size of its header (the offset of its first block)
eventlog_header_bytes() { rtscope show --offsets --blocks "$1" | sed -n '1s/^@\([0-9]*\).*/\1/p'; }

# canon_count CANON TYPE: how many events of TYPE a canonical summary (rtscope stats --canonical, GhcEventsCheck) counts
canon_count() { awk -v t="$2" '$1=="event" && $2==t {print $3}' "$1"; }

# flushcheck ARGS...: testsuite/tools/flushcheck (FlushCheck.hs's summary of an eventlog)
flushcheck() { "$TESTSUITE/tools/flushcheck" "$@"; }

# serve_eventlog ARGS...: serve-eventlog.py ARGS in the background, a job of the line (`wait` waits for it)
serve_eventlog() { python3 "$TESTSUITE/tools/serve-eventlog.py" "$@" & }

# truncated_input_keeps_events EVENTLOG BYTES: its first BYTES (cut.eventlog) give a truncation warning with an
# offset and events from stats (cut.out, cut.err), an .hp hp2ps accepts (cut.hp), and output from show on stdin
truncated_input_keeps_events() {
    head -c "$2" "$1" > cut.eventlog &&
        rtscope stats cut.eventlog > cut.out 2> cut.err &&
        grep -q '^rtscope: cut.eventlog: offset [0-9][0-9]*: warning: eventlog is truncated' cut.err &&
        grep -q '^events: [1-9]' cut.out &&
        rtscope hp -o cut.hp cut.eventlog 2>/dev/null &&
        "$HP2PS" cut.hp &&
        rtscope show - < cut.eventlog > cut.show 2>/dev/null &&
        test -s cut.show
}

# snapshot_while_running PID FILE COPY: copy FILE to COPY, and PID was still running after the copy
snapshot_while_running() { cp "$2" "$3" && kill -0 "$1"; }

# samples_between_markers SUMMARY: a flushcheck summary has at least 5 heap samples, markers "start" and "stop", and every sample between them
samples_between_markers() {
    awk '$1=="marker"&&$3=="start"{s=$4} $1=="marker"&&$3=="stop"{e=$4} $1=="sample_ns"{t[n++]=$2} END{if(n<5||s==""||e=="")exit 1; for(i=0;i<n;i++) if(t[i]<s||t[i]>e) exit 1}' "$1"
}

# most_samples_while_running PID EVENTLOG WANT: every 0.25 s (40 times at most) while PID runs, copy EVENTLOG
# (snap.eventlog) and keep its complete prefix with the most heap samples as best.eventlog; stop at WANT; print the most
most_samples_while_running() {
    local best=0 i s
    for i in $(seq 40); do
        sleep 0.25
        [ -s "$2" ] || continue
        cp "$2" snap.eventlog || return 1
        kill -0 "$1" 2>/dev/null || break
        flushcheck snap.eventlog prefix.eventlog > snap.txt || return 1
        s=$(awk '$1=="samples"{print $2}' snap.txt) || return 1
        if [ "$s" -gt "$best" ]; then
            best=$s
            cp prefix.eventlog best.eventlog || return 1
        fi
        [ "$best" -ge "$3" ] && break
    done
    echo "$best"
}

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

# --- the eventlog API from every calling convention (EventlogCalls) -----------

# calls_run DIR RTS-FLAGS ARG...: run $EXE ARG... +RTS RTS-FLAGS in DIR (stdout, stderr there); 30 s at most:
# a hang fails, and so does a non-zero exit
calls_run() {
    local d=$1 rtsf=$2 rc=0
    shift 2
    mkdir -p "$d"
    # shellcheck disable=SC2086
    (cd "$d" && timeout 30 "$EXE" "$@" +RTS $rtsf -RTS >stdout 2>stderr) || rc=$?
    [ "$rc" = 0 ] || { echo "$d: $* +RTS $rtsf: exit $rc$([ $rc = 124 ] && echo ' (hung)'): $(head -c 300 "$d/stderr")"; return 1; }
}

# steps_ok FILE STEP...: FILE (EventlogCalls' stdout) says "STEP 1" for each STEP, then "done"
steps_ok() {
    local f=$1 s
    shift
    for s in "$@"; do
        grep -qx "$s 1" "$f" || { echo "$f: step $s: $(grep "^$s " "$f" || echo missing)"; return 1; }
    done
    grep -qx 'done' "$f" || { echo "$f: no 'done'"; return 1; }
}

# writer_streams N: eventlog_calls.c's writer (writer.log, here) was given exactly N streams, each called init first
# and stop last, and each stream-K.eventlog is complete and begins with its init events
writer_streams() {
    local k calls
    for k in $(seq 0 $(($1 - 1))); do
        calls=$(awk -v k="$k" '$2 == k { print $1 }' writer.log | sed -n '1p;$p' | tr '\n' ' ')
        [ "$calls" = "init stop " ] || { echo "stream $k: $(grep " $k\$" writer.log | tr '\n' ' ')"; return 1; }
        stream_complete "stream-$k.eventlog" wallclock pid heapinfo
        stream_starts_with "stream-$k.eventlog" capcreate wallclock
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
            # shellcheck disable=SC2086
            calls_run "$conv$n" "-l -hT -A64m $n" "$conv" $steps || return 1
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

# --- -hi and provenance --------------------------------------------------------

# layout_names_like_dwarf BOTH.TSV: of the local tables of Main and BindingLayoutLib named by both runs (joined
# `rtscope ipe` rows: DWARF's fields 2-8, layout's 9-14), at least 8 of each module, every one has the same
# module and at least 80% the same top-level binding ($wf, f1 and f.go count as f)
layout_names_like_dwarf() {
    awk -F'\t' 'function base(l) { sub(/^\$w/, "", l); sub(/[.].*$/, "", l); sub(/[0-9]+$/, "", l); return l }
        ($6 == "Main" || $6 == "BindingLayoutLib") && $2 ~ /^(s[0-9a-zA-Z]+|sat_s[0-9a-zA-Z]+)_info$/ && $9 == "" {
            n++; m[$6]++
            if ($13 != $6) { print "module differs: " $0; bad = 1 }
            if (base($5) == base($12)) same++; else print "binding differs: " $2 " dwarf " $5 " layout " $12
        }
        END {
            printf "%d local tables (Main %d, BindingLayoutLib %d), %d with the same binding\n", n, m["Main"], m["BindingLayoutLib"], same
            exit bad || m["Main"] < 8 || m["BindingLayoutLib"] < 8 || same < 0.8 * n
        }' "$1"
}

# hi_explains_missing_names DP: the -Dp output DP has at most two "rtscope: -hi:" lines besides the provenance
# index's, reports the index's objects, and says there is no DWARF
hi_explains_missing_names() {
    test "$(grep 'rtscope: -hi:' "$1" | grep -vc 'provenance index')" -le 2 &&
        grep -q 'rtscope: -hi: provenance index: [0-9]* objects' "$1" &&
        grep -q 'rtscope: -hi: no DWARF' "$1"
}

# hp_bands_named HP: no band of the .hp is "(none)" or a bare info-table address
hp_bands_named() { ! grep -E '^\(none\)|^0x[0-9a-f]+[[:space:]]' "$1"; }

# hp_bands_once_per_sample HP: no band appears twice in one sample of the .hp
hp_bands_once_per_sample() {
    awk '/^BEGIN_SAMPLE/ {delete seen; next} /^(END_SAMPLE|MARK)/ {next} NF == 2 && $1 in seen {print "twice in one sample: " $1; bad = 1} NF == 2 {seen[$1] = 1} END {exit bad}' "$1"
}

# censuses_per_mut_second PREFIX: heap samples of PREFIX{0,1,2}.eventlog per second of MUT time in PREFIX{0,1,2}.s (-s output)
censuses_per_mut_second() {
    local n=0 m=0 k
    for k in 0 1 2; do
        n=$((n + $("$RTSCOPE" stats "$1$k.eventlog" | awk '/^heap samples:/ {print $3}')))
        m=$(awk -v m="$m" '/MUT +time/ {sub(/s$/, "", $3); print m + $3}' "$1$k.s")
    done
    echo "$1: $n censuses, $m s MUT" >&2
    awk -v n="$n" -v m="$m" 'BEGIN {print n / m}'
}

# --- the debugger ------------------------------------------------------------

# retainer_path_ends BLOCKS_OUT: per retainer path of `rtscope debug blocks` output, "OBJECT|" and its last four lines, |-separated
retainer_path_ends() {
    awk '/^object /{obj=$2} /^retainer path:/{p=1; n=0; next} p && /^  /{l[++n]=$0; next} p{p=0; print obj "|" l[n-3] "|" l[n-2] "|" l[n-1] "|" l[n]} END{if(p) print obj "|" l[n-3] "|" l[n-2] "|" l[n-1] "|" l[n]}' "$1"
}

# --- sockets -----------------------------------------------------------------

# listen_unix PATH SECS: a live listener (not the RTS) on Unix socket PATH for SECS s, a job of the line (%1 when first); returns once PATH is there and listening
listen_unix() {
    python3 -c "import os,socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]+'.tmp'); s.listen(1); os.rename(sys.argv[1]+'.tmp',sys.argv[1]); time.sleep($2)" "$1" &
    wait_until 20 test -S "$1"
}

# listen_tcp PORTFILE SECS: a listener on a free port of 127.0.0.1 for SECS s, its port in PORTFILE, a job of the line; returns once it listens
listen_tcp() {
    python3 -c "import socket,sys,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(1); print(s.getsockname()[1], flush=True); time.sleep($2)" > "$1" &
    wait_until 20 test -s "$1"
}

# occupy_port NAME: hold a free port of 127.0.0.1 (its number in NAME.port, once listening) until release_port NAME, 60 s at most
occupy_port() {
    rm -f "$1.port" "$1.done"
    python3 -c 'import os,socket,sys,time; n=sys.argv[1]; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); open(n+".tmp","w").write(str(s.getsockname()[1])); os.rename(n+".tmp",n+".port"); t=time.time(); exec("while not os.path.exists(n+\".done\") and time.time()-t<60: time.sleep(0.05)")' "$1" &
    wait_at_most 30 test -s "$1.port"
}

# release_port NAME: end occupy_port NAME (and wait for the line's background jobs)
release_port() { touch "$1.done"; wait; }

# --- exporter, Prometheus, InfluxDB ------------------------------------------

# export_env CMD...: testsuite/tools/export-env (services, ports and queries of the export and live cases)
export_env() { "$TESTSUITE/tools/export-env" "$@"; }

# tsdb_check CHECK FILE...: testsuite/tools/tsdb-check.py, assertions on Prometheus and InfluxDB answers
tsdb_check() { python3 "$TESTSUITE/tools/tsdb-check.py" "$@"; }

# followed_pid PROG: the pid of the first run of PROG the exporter followed (from exporter.err)
followed_pid() { grep -o "$1 pid [0-9]*" exporter.err | head -1 | awk '{print $3}'; }

# wait_exporter_follows PROG PID [SECS]: the exporter (exporter.port) reports PROG's run PID up within SECS s (default 20)
wait_exporter_follows() { export_env wait-metric "$(cat exporter.port)" "ghc_up\{program=\"$1\",pid=\"$2\"\} 1" ${3:+"$3"}; }

# metric_is METRICS NAME OP VALUE: Prometheus text METRICS has an unlabelled NAME whose value OP VALUE (awk: == > >=)
metric_is() { awk -v n="$2" -v v="$4" "\$1==n && \$2 $3 v {ok=1} END {exit !ok}" "$1"; }

# poll_influx_drained METRICS: scrape the exporter (exporter.port) into METRICS every 0.25 s, 60 times at most, until its
# InfluxDB queue is empty and it has sent points; a failed scrape fails, running out of tries does not (assert after)
poll_influx_drained() {
    local i
    for i in $(seq 60); do
        export_env scrape "$(cat exporter.port)" > "$1" || return 1
        metric_is "$1" rtscope_influx_queue_points == 0 && metric_is "$1" rtscope_influx_sent_points_total '>' 0 && return 0
        sleep 0.25
    done
    return 0
}

# influx_wait DB QUERY value|rows N OUT: run QUERY (answer in OUT) up to 15 times, 0.2 s apart, until its first value
# (value) or its number of rows (rows) is N, 0 while it has no rows; a failed query fails
influx_wait() {
    local i n
    for i in $(seq 15); do
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

# --- terminal (tmux) ---------------------------------------------------------

# tmux_start CMD: a detached 150x45 tmux session running CMD, on a server of its own (its -L name in tmux.sock)
tmux_start() {
    tmux -L "rtl-$$" kill-server 2>/dev/null || true
    echo "rtl-$$" > tmux.sock && tmux -L "$(cat tmux.sock)" new-session -d -x 150 -y 45 "$1"
}

# tmux_screen: the pane's text now
tmux_screen() { tmux -L "$(cat tmux.sock)" capture-pane -p; }

# tmux_keys KEYS...: type KEYS into the pane
tmux_keys() { tmux -L "$(cat tmux.sock)" send-keys "$@"; }

# poll_screen FILE ERE...: capture the pane into FILE every 0.1 s, 100 times at most, until it matches every ERE;
# a failed capture fails, running out of tries does not (assert after)
poll_screen() {
    local f=$1 i re ok
    shift
    for i in $(seq 100); do
        tmux_screen > "$f" || return 1
        ok=1
        for re in "$@"; do grep -Eq "$re" "$f" || { ok=0; break; }; done
        [ $ok = 1 ] && return 0
        sleep 0.1
    done
    return 0
}

# --- documentation -----------------------------------------------------------

# rts_flags EXE: the flags `EXE +RTS -?` lists, one a line, sorted
rts_flags() { { "$1" +RTS -? 2>&1 || true; } | grep -oE '^[^:]+: +-[-a-zA-Z]+' | sed 's/^[^:]*: *//' | sort -u; }

# rtscope_commands: the commands `rtscope help` lists, but help
rtscope_commands() { rtscope help | awk '/^commands:/ {p = 1; next} p && !NF {exit} p {print $1}' | grep -vx help; }

# rtscope_options CMD: the --options `rtscope help CMD` prints, sorted
rtscope_options() { rtscope help "$1" | grep -oE -- '(^|[ ,[(])--[a-z][-a-z]*' | grep -oE -- '--[a-z][-a-z]*' | sort -u; }

# all_in_reference FORMAT WHAT < LIST: docs/reference.md contains `printf FORMAT X` for each line X of LIST; names each
# one missing ("WHAT X is not in docs/reference.md")
all_in_reference() {
    local fmt=$1 what=$2 x s missing=0
    while read -r x; do
        # shellcheck disable=SC2059 # FORMAT is the caller's
        s=$(printf -- "$fmt" "$x")
        grep -F -- "$s" "$TESTSUITE/../docs/reference.md" > /dev/null ||
            { echo "$what $x is not in docs/reference.md"; missing=1; }
    done
    return $missing
}

# guide_run ARGS...: testsuite/tools/guide-run (the guide's doc-test runner)
guide_run() { "$TESTSUITE/tools/guide-run" "$@"; }

# --- toolchain scripts ---------------------------------------------------------

# stale_patch: a patch of rts/Stats.c whose context is in no GHC source
stale_patch() { printf -- '--- a/rts/Stats.c\n+++ b/rts/Stats.c\n@@ -1,3 +1,3 @@\n-no such line\n+x\n more\n'; }

# pkg_lists GHC_PKG NAME...: `GHC_PKG list` (no database flags) names every package NAME; names each one missing
pkg_lists() {
    local pkg=$1 names n missing=0
    shift
    names=$("$pkg" list --simple-output --names-only | tr ' ' '\n') || return 1
    for n in "$@"; do
        grep -qx -- "$n" <<<"$names" || { echo "$pkg list does not name $n" >&3; missing=1; }
    done
    return $missing
}

# top_field_under GHC_PKG UNIT FIELD DIR: the first FIELD `GHC_PKG field UNIT FIELD` prints (the unit's instance
# highest on the stack, the one ghc links) is DIR or lies under it
top_field_under() {
    local v
    v=$("$1" field "$2" "$3" --simple-output | head -1) || return 1
    case "$v" in
        "$4" | "$4"/*) return 0 ;;
    esac
    echo "$1 field $2 $3: first value '$v' is not under $4" >&3
    return 1
}

# pkg_check_like_stock GHC_PKG: `GHC_PKG check` exits 0, or prints only lines Debian's `ghc-pkg check` prints too;
# writes pkgcheck-overlay.txt, pkgcheck-stock.txt
pkg_check_like_stock() {
    "$1" check >pkgcheck-overlay.txt 2>&1 && return 0
    /usr/bin/ghc-pkg check >pkgcheck-stock.txt 2>&1
    grep -vxFf pkgcheck-stock.txt pkgcheck-overlay.txt >&3 || return 0
    echo "$1 check: the lines above are not in Debian's ghc-pkg check" >&3
    return 1
}
