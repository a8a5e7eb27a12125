# shellcheck shell=bash
# testsuite/tools/predicates/prof.sh: predicates of profiled programs (-prof).
# Sourced after testsuite/tools/predicates.sh (its rules hold here).

# census_of_held_run NAME ARG...: DebugLeak ($EXE ARG...) with the stub on NAME.sock, held at NAME.hold
# (DEBUGLEAK_HOLD) until
# `rtscope debug census` of it has run (census.out, census.err); prints the census's exit status; the program then
# exits 0,
# printing what the driver's run printed (run.out, run.err)
census_of_held_run() {
    local n=$1 pid rc=0
    shift
    DEBUGLEAK_HOLD=$T/$n.hold $ENTER "$EXE" "$@" +RTS --debug-stub="$T/$n.sock" -RTS > run.out 2> run.err &
    pid=$!
    for _ in $(seq 600); do [ -S "$n.sock" ] && grep -q holding run.err && break; sleep 0.1; done
    rtscope debug census "$T/$n.sock" > census.out 2> census.err || rc=$?
    touch "$n.hold"
    wait "$pid" && diff run.out "$STDOUT" >&3 && echo "$rc"
}

# prof_ticks PROF: the ticks a .prof file counts
prof_ticks() { sed -n 's/.*(\([0-9]*\) ticks @ 1000 us.*/\1/p' "$1"; }
