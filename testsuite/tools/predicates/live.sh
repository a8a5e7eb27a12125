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
