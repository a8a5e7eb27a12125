# shellcheck shell=bash
# testsuite/tools/predicates/socket.sh: predicates of the eventlog socket:
# clients, listeners, the RTS's messages. Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

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

# elsock_bg NAME ARGS...: clients/elsock-bg, an eventlog-socket client in the background (NAME.eventlog, NAME.err,
# NAME.done)
elsock_bg() { "$TESTSUITE/tools/clients/elsock-bg" "$@"; }

# elsock_wait NAME [SECS]: clients/elsock-wait, the client NAME ended (within SECS s, default 30) and exited 0
elsock_wait() { "$TESTSUITE/tools/clients/elsock-wait" "$@"; }

# runs_saying NAME BRE RTS...: `$EXE $ARGS +RTS RTS... -RTS` exits 0 printing what the driver's run printed
# (NAME.out), and
# says BRE on stderr (NAME.err)
runs_saying() {
    local n=$1 re=$2
    shift 2
    # shellcheck disable=SC2086 # ARGS is the case's argument line
    $ENTER "$EXE" $ARGS +RTS "$@" -RTS > "$n.out" 2> "$n.err" && diff "$n.out" "$STDOUT" && grep -q -- "$re" "$n.err"
}

# stale_socket PATH: a Unix socket file at PATH that nothing listens on
stale_socket() {
    python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$1" && test -S "$1"
}

# build_elsock_fuzzer OUT: testsuite/fuzz/fuzz_elsock.c with the RTS's socket control parser and stream splitter,
# libFuzzer
# with ASan and UBSan, into OUT
build_elsock_fuzzer() {
    clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$TOP/rts/eventlog" -I"$TOP/includes" \
        "$TOP/rts/eventlog/EventLogSocketControl.c" "$TOP/rts/eventlog/EventLogStream.c" "$TESTSUITE/fuzz/fuzz_elsock.c" -o "$1"
}

# timed_run TIMEFILE CMD...: run CMD (stdout to /dev/null); TIMEFILE has its maximum RSS in KiB and its seconds
# (/usr/bin/time)
timed_run() {
    local f=$1
    shift
    /usr/bin/time -f '%M %e' -o "$f" "$@" > /dev/null
}

# costs_at_most BASE SLOW KIB SECS: the run timed in SLOW (timed_run) took at most KIB KiB more RSS, and less than
# SECS s more
# time, than the one in BASE
costs_at_most() {
    local base_kb base_s slow_kb slow_s
    read -r base_kb base_s < "$1" && read -r slow_kb slow_s < "$2" || return 1
    echo "rss base ${base_kb}k slow ${slow_kb}k; time base ${base_s}s slow ${slow_s}s"
    test $((slow_kb - base_kb)) -le "$3" && awk -v a="$slow_s" -v b="$base_s" -v d="$4" 'BEGIN { exit !(a < b + d) }'
}
