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

# sample_shares PROG.prof TOP.txt alloc|time TOLERANCE NAME...: checkers/sample-shares.py, sampled callers' shares
# against -prof's
sample_shares() { python3 "$TESTSUITE/tools/checkers/sample-shares.py" "$@"; }

# sampled_bytes_match PROFILE RUN.s TOLERANCE: the alloc_space total of PROFILE (rtscope pprof --stacks) is the
# "bytes allocated in the heap" of RUN.s (+RTS -s) within TOLERANCE (a fraction)
sampled_bytes_match() {
    local total heap
    total=$(go_pprof -raw -sample_index=alloc_space "$1" 2>/dev/null | awk '/^Samples:/ {s = 1; next} /^Locations/ {s = 0} s && /^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+:/ {t += $2} END {print t + 0}')
    heap=$(awk '/bytes allocated in the heap/ {gsub(",", "", $1); print $1}' "$2")
    echo "sampled $total bytes, the RTS counted $heap"
    awk -v a="$total" -v b="$heap" -v t="$3" 'BEGIN {exit !(b > 0 && a >= (1 - t) * b && a <= (1 + t) * b)}'
}

# solo_times ROUNDS NAME=ARG...: for each NAME, the mutator CPU seconds of `$EXE ROUNDS ARG` (+RTS -s), as
# `NAME SECONDS` lines (the median of three runs each)
solo_times() {
    local r=$1 kv n a
    shift
    for kv in "$@"; do
        n=${kv%%=*} a=${kv#*=}
        for _ in 1 2 3; do
            $ENTER "$EXE" "$r" "$a" +RTS -s -RTS 2>&1 >/dev/null | awk '/MUT +time/ {sub(/s$/, "", $3); print $3}'
        done | sort -g | sed -n 2p | sed "s/^/$n /"
    done
}
