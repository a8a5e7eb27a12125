# shellcheck shell=bash
# testsuite/tools/predicates/pprof.sh: predicates of pprof profiles and go
# tool pprof. Sourced after testsuite/tools/predicates.sh (its rules hold
# here).

# go_pprof ARGS...: go tool pprof ARGS, its caches in $T
go_pprof() { HOME=$T GOCACHE=$T/gocache go tool pprof "$@"; }

# pprof_top PROFILE OUT [FLAGS...]: go tool pprof -top of PROFILE in bytes, every node, into OUT (shown on failure)
pprof_top() {
    local p=$1 o=$2
    shift 2
    go_pprof -top -unit=B -nodefraction=0 -nodecount=100000 "$@" "$p" > "$o" 2>&1 || { cat "$o" >&3; return 1; }
}

# pprof_top_check ARGS...: checkers/pprof-top-check.py, go tool pprof -top output against `rtscope html --json`
pprof_top_check() { python3 "$TESTSUITE/tools/checkers/pprof-top-check.py" "$@"; }

# pprof_flat N ARGS...: the flat column of the first N rows of go tool pprof -top -nodecount=N ARGS
pprof_flat() {
    local n=$1
    shift
    go_pprof -top -nodecount="$n" "$@" 2>/dev/null | awk '/flat%/ {p = 1; next} p {print $1}'
}

# pprof_frames_after PROFILE TEXT: the three lines after each line with TEXT in go tool pprof -traces PROFILE
# (traces.txt); fails if none
pprof_frames_after() { go_pprof -traces "$1" > traces.txt 2>&1 && grep -A3 -- "$2" traces.txt; }

# pprof_into_readonly_dir_fails EVENTLOG: `rtscope pprof -o ro/x.pb.gz EVENTLOG` into a directory it may not write
# (ro) exits
# 1 saying "Permission denied" and leaves ro empty (as root, who may write there, only the directory is made)
pprof_into_readonly_dir_fails() {
    local rc=0
    mkdir ro && chmod 555 ro || return 1
    rtscope pprof -o ro/x.pb.gz "$1" 2> ro.err || rc=$?
    chmod 755 ro || return 1
    [ "$(id -u)" != 0 ] || return 0
    test $rc = 1 && grep -q 'ro/x.pb.gz: cannot write: Permission denied' ro.err && test -z "$(ls ro)"
}
