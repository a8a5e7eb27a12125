# shellcheck shell=bash
# testsuite/tools/predicates/guide.sh: predicates of the documentation: the
# reference's completeness, the guide's runner. Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

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

# guide_run ARGS...: sessions/guide-run (the guide's doc-test runner)
guide_run() { "$TESTSUITE/tools/sessions/guide-run" "$@"; }

# options_in_reference CMD...: `rtscope help CMD` lists at least one option (opts.CMD), and docs/reference.md names
# every
# one; names each gap
options_in_reference() {
    local c missing=0
    for c in "$@"; do
        rtscope_options "$c" > "opts.$c" || return 1
        test -s "opts.$c" || { echo "rtscope help $c lists no option"; missing=1; }
        all_in_reference '%s' "rtscope $c" < "opts.$c" || missing=1
    done
    return $missing
}

# debug_help_describes SUB...: `rtscope help debug` has a line describing each SUB; names each missing
debug_help_describes() {
    local s missing=0
    for s in "$@"; do
        rtscope help debug | grep -E "^ +$s " > /dev/null || { echo "rtscope help debug does not describe $s"; missing=1; }
    done
    return $missing
}
