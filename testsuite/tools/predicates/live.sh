# shellcheck shell=bash
# testsuite/tools/predicates/live.sh: predicates of rtscope live in a terminal
# (tmux). Sourced after testsuite/tools/predicates.sh (its rules hold here).

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
    local f=$1 re ok
    shift
    for _ in $(seq 100); do
        tmux_screen > "$f" || return 1
        ok=1
        for re in "$@"; do grep -Eq "$re" "$f" || { ok=0; break; }; done
        [ $ok = 1 ] && return 0
        sleep 0.1
    done
    return 0
}

# live_in_tmux SECS SOCK: `rtscope live unix:SOCK` in tmux (tmux_start) for SECS s at most, its screen kept 10 s after
# it ends
live_in_tmux() { tmux_start "timeout --foreground $1 rtscope live unix:$2; sleep 10"; }

# lag_run NAME RTS MODE: QuietTicks (16 markers, one every 250 ms, MODE marker|gc|census|busy) with +RTS -l RTS
# --eventlog-flush-interval=1 on a socket, read live by `rtscope show` under marker-lag.py (through grep, so that a busy
# program's other lines do not slow the Python reader); its summary in NAME.lag ("markers N p50 X ms p95 Y ms max Z
# ms"), one line a marker in NAME.txt
lag_run() {
    local n=$1 r=$2 m=$3
    rm -f "$T/$n.sock"
    # shellcheck disable=SC2086 # RTS is a list of flags
    $ENTER "$EXE" 16 250 "$m" +RTS -l -ol"$n".eventlog --eventlog-flush-interval=1 --eventlog-socket="$T/$n.sock" \
        --eventlog-socket-wait $r -RTS > "$n.out" 2>&1 &
    wait_at_most 20 test -S "$T/$n.sock" || return 1
    timeout 60 python3 "$TESTSUITE/tools/checkers/marker-lag.py" "$n.txt" -- \
        sh -c "rtscope show 'unix:$T/$n.sock' | grep --line-buffered -a 'tick [0-9]* at'" > "$n.lag"
    wait
    echo "$n: $(cat "$n.lag")"
}

# lag_within NAME MS: NAME's run (lag_run) showed all 16 markers, none more than MS ms after the program posted it
lag_within() {
    read -r _ n _ _ _ _ _ _ _ max _ < "$1.lag"
    [ "$n" = 16 ] && [ "${max%.*}" -le "$2" ]
}
