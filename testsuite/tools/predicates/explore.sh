# shellcheck shell=bash
# testsuite/tools/predicates/explore.sh: predicates of rtscope explore in a
# terminal (tmux, with live.sh's tmux_start, tmux_keys, tmux_screen,
# poll_screen). Sourced after testsuite/tools/predicates.sh.

# explore_program NAME ARGS...: run $EXE ARGS... in the background with a
# socket directory of its own ($XDG, linked from xdg/), its pid in NAME.pid, stdout NAME.out;
# until its debug socket is there (60 s at most)
explore_program() {
    local name=$1
    shift
    mkdir -p xdg
    XDG_DATA_HOME=$XDG $ENTER "$EXE" "$@" > "$name.out" 2> "$name.err" &
    echo $! > "$name.pid"
    local sock="xdg/ghc-debug/debuggee/sockets/$!-$PROG"
    wait_at_most 60 test -S "$sock"
    [ -S "$sock" ] || { echo "$name: no socket $sock: $(cat "$name.err")"; return 1; }
}

# explore_in_tmux ARGS...: `rtscope explore ARGS...` in tmux (60 s at most; the screen kept 10 s after it ends), its
# socket directory $XDG
explore_in_tmux() { tmux_start "XDG_DATA_HOME=$XDG timeout --foreground 60 rtscope explore $*; sleep 10"; }

# ticks NAME: how many "tick" lines the program NAME printed
ticks() { grep -c '^tick' "$1.out" || true; }

# ticking NAME SECS: the program NAME printed at least one tick in SECS s (it runs)
ticking() {
    local a
    a=$(ticks "$1")
    sleep "$2"
    [ "$(ticks "$1")" -gt "$a" ] || { echo "$1: no tick in $2 s: not running"; return 1; }
}

# still NAME SECS: the program NAME printed no tick in SECS s (it is paused)
still() {
    local a
    a=$(ticks "$1")
    sleep "$2"
    [ "$(ticks "$1")" -eq "$a" ] || { echo "$1: $(( $(ticks "$1") - a )) ticks in $2 s: not paused"; return 1; }
}

# screen_rows FILE ERE...: FILE (a captured screen) has a line matching each ERE, in that order
screen_rows() {
    local f=$1 re n=0 at
    shift
    for re in "$@"; do
        at=$(tail -n +$((n + 1)) "$f" | grep -En -m1 -- "$re" | cut -d: -f1)
        [ -n "$at" ] || { echo "$f: no line matching '$re' after line $n:"; cat "$f"; return 1; }
        n=$((n + at))
    done
}

# tmux_end: the tmux server of tmux_start, gone
tmux_end() { tmux -L "$(cat tmux.sock)" kill-server 2>/dev/null || true; }

# explore_kill9 PID: kill -9 the `rtscope explore PID` of this case
explore_kill9() { pkill -9 -f "rtscope explore $1\$"; }

# src_line FILE TEXT: the number of the first line of testsuite/programs/FILE that has TEXT
src_line() { grep -nF -m1 -- "$2" "$TESTSUITE/programs/$1" | cut -d: -f1; }

# explore_search QUERY: type / QUERY Enter into the explorer (the prompt cleared first)
explore_search() { tmux_keys / C-u; tmux_keys -l "$1"; tmux_keys Enter; }

# explore_cmd TEXT: run the command whose name has TEXT from the command picker (Ctrl-P)
explore_cmd() { tmux_keys C-p; tmux_keys -l "$1"; tmux_keys Enter; }

# no_screen_row FILE ERE: no line of FILE (a captured screen) above its details pane matches ERE
no_screen_row() {
    local hit
    hit=$(sed '/^-\{20,\}$/q' "$1" | grep -E -- "$2" || true)
    [ -z "$hit" ] || { echo "$1: a line matches '$2': $hit"; return 1; }
}

# first_addr FILE ERE: the closure address (0x...) of the first line of FILE matching ERE
first_addr() { grep -E -m1 -- "$2" "$1" | grep -Eo '0x[0-9a-f]+' | head -1; }

# explore_select ERE: move the selection down (j) to the first row of the screen matching ERE
explore_select() {
    local at
    at=$(tmux_screen | grep -En -m1 -- "$1" | cut -d: -f1)
    [ -n "$at" ] || { echo "no row matches '$1'"; tmux_screen; return 1; }
    tmux_keys g
    for _ in $(seq $((at - 2))); do tmux_keys j; done
}

# cpu_ticks PID: the CPU time process PID has used (user + system, in clock ticks)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# working PID SECS: process PID used CPU time within SECS s (it computes: not paused, not waiting)
working() {
    local a
    a=$(cpu_ticks "$1")
    sleep "$2"
    [ "$(cpu_ticks "$1")" -gt "$a" ] || { echo "process $1 used no CPU in $2 s"; return 1; }
}

# corrupt_middle FILE: 16 bytes of FILE's middle overwritten (its header intact: a snapshot that lists, and fails to load)
corrupt_middle() { printf 'XXXXXXXXXXXXXXXX' | dd of="$1" bs=1 seek=$(( $(stat -c %s "$1") / 2 )) conv=notrunc 2>/dev/null; }
