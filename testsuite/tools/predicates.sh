# shellcheck shell=bash
# testsuite/tools/predicates.sh: named predicates for the cases' prepare and
# check lines, so a line says what it asserts and the how lives here: the
# general ones here, each area's in testsuite/tools/predicates/AREA.sh. The
# driver sources this file, then every predicates/*.sh, before each such
# line (bash -e -o pipefail, cwd $T, the case's environment), so a case may
# use any area's predicates. A check line is at most 200 characters: logic
# longer than that gets a name here.
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

# has_each FILE BRE...: FILE has a line matching each BRE; names the first missing
has_each() {
    local f=$1 re
    shift
    for re in "$@"; do
        grep -q -- "$re" "$f" || { echo "$f: no line matching: $re" >&3; return 1; }
    done
}

# has_each_once FILE BRE...: each BRE matches exactly one line of FILE
has_each_once() {
    local f=$1 re n
    shift
    for re in "$@"; do
        n=$(grep -c -- "$re" "$f" || true)
        [ "$n" -eq 1 ] || { echo "$f: $n lines match: $re" >&3; return 1; }
    done
}

# fails_saying ERR BRE CMD...: CMD fails (any non-zero status), its stderr (ERR) has a line matching BRE
fails_saying() {
    local err=$1 re=$2
    shift 2
    if "$@" 2> "$err"; then
        echo "succeeded: $*" >&3
        return 1
    fi
    grep -q -- "$re" "$err"
}

# one_error_line RC ERR BRE CMD...: CMD exits RC, with exactly one line on stderr (ERR), matching BRE
one_error_line() {
    local want=$1 err=$2 re=$3 rc=0
    shift 3
    "$@" 2> "$err" || rc=$?
    [ "$rc" = "$want" ] || { echo "exit $rc, expected $want: $*" >&3; return 1; }
    [ "$(wc -l < "$err")" = 1 ] || { echo "not one line on stderr: $*" >&3; cat "$err" >&3; return 1; }
    grep -q -- "$re" "$err"
}

# none_named PREFIX: no file's path starts with PREFIX (ls PREFIX* finds nothing)
none_named() { ! ls "$1"* 2>/dev/null; }

# timed_ms MSFILE CMD...: run CMD; it succeeds, and MSFILE holds how many milliseconds it took
timed_ms() {
    local f=$1 t0
    shift
    t0=$(date +%s%N)
    "$@" && echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$f"
}

# fuzz_clean FUZZER SECS MAX_LEN RSS_MB CORPUS: libFuzzer target FUZZER runs SECS s on CORPUS (-max_len, -rss_limit_mb)
# without a finding, and reports its runs (fuzz.log; its tail shown on failure)
fuzz_clean() {
    "$1" -max_total_time="$2" -max_len="$3" -rss_limit_mb="$4" "$5" > fuzz.log 2>&1 || { tail -30 fuzz.log >&3; return 1; }
    grep -q '^Done [0-9]* runs' fuzz.log
}

# --- programs and inputs (testsuite/tools/clients) -----------------------------

# stock_exe [FLAGS...]: the case's program built with stock ghc in the case's way (clients/stock-exe); prints its path
stock_exe() { "$TESTSUITE/tools/clients/stock-exe" "$@"; }

# gen_eventlog ARGS...: consumer/build/tools/gen-eventlog, a synthetic heap-profile eventlog (clients/gen-eventlog.c)
gen_eventlog() { "$TOP/consumer/build/tools/gen-eventlog" "$@"; }

# gen_markdown N: a Markdown document of N sections for the real tier's programs (clients/gen-markdown.py)
gen_markdown() { python3 "$TESTSUITE/tools/clients/gen-markdown.py" "$@"; }

# tier_ghc: the case's GHC as a heap says it (the stub's VERSION, a snapshot's header): 902 or 906
tier_ghc() { case "$TIER" in 9.6) echo 906 ;; *) echo 902 ;; esac; }
