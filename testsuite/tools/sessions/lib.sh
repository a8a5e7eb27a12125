# shellcheck shell=bash
# testsuite/tools/sessions/lib.sh: what the session scripts share; each
# sources it (`. "$(dirname "$0")/lib.sh"`). A session runs the case's
# program, held alive by protocol (a hold file it waits for, or a client it
# waits on) rather than by time, drives it with clients, and checks that it
# then finishes as the driver's undisturbed run did. Every wait polls for a
# condition with a bound.

# poll_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS.
poll_for() {
    local limit=$1
    shift
    for _ in $(seq $((limit * 20))); do "$@" && return 0; sleep 0.05; done
    "$@"
}

# wait_socket PATH: until PATH is a socket, at most 60 s.
wait_socket() {
    poll_for 60 test -S "$1" || { echo "no socket at $1"; return 1; }
}

# wait_ready OUT ERR MESSAGE: until the program's stdout OUT has a line
# starting "ready", at most 120 s; else MESSAGE and its stderr ERR.
wait_ready() {
    poll_for 120 grep -q '^ready' "$1" 2>/dev/null || { echo "$3"; cat "$2"; return 1; }
}

# finish NAME [SECONDS]: let the held run end (creates $hold); the program
# ($pid) must exit 0 within SECONDS (default 60) and print what the
# driver's undisturbed run printed ($STDOUT; its own output NAME-run.out,
# its stderr NAME-run.err).
# shellcheck disable=SC2154 # hold and pid are the session's, set by its start
finish() {
    local secs=${2:-60}
    touch "$hold"
    if ! poll_for "$secs" eval '! kill -0 "$pid" 2>/dev/null'; then
        kill -9 "$pid" 2>/dev/null || true
        echo "$1: the program did not finish within $secs s of its hold file"
        return 1
    fi
    wait "$pid" || { echo "$1: exit $?"; cat "$1-run.err"; return 1; }
    diff -u "$STDOUT" "$1-run.out"
}
