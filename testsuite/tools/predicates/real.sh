# shellcheck shell=bash
# testsuite/tools/predicates/real.sh: predicates of the real-program tier
# (pandoc, aeson from Debian's packages). Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

# censuses_per_mut_second PREFIX: heap samples of PREFIX{0,1,2}.eventlog per second of MUT time in PREFIX{0,1,2}.s (-s output)
censuses_per_mut_second() {
    local n=0 m=0 k
    for k in 0 1 2; do
        n=$((n + $("$RTSCOPE" stats "$1$k.eventlog" | awk '/^heap samples:/ {print $3}')))
        m=$(awk -v m="$m" '/MUT +time/ {sub(/s$/, "", $3); print m + $3}' "$1$k.s")
    done
    echo "$1: $n censuses, $m s MUT" >&2
    awk -v n="$n" -v m="$m" 'BEGIN {print n / m}'
}

# census_runs_side_by_side STOCK ARG...: STOCK ARG... three times and $EXE ARG... twice more (the driver's run is the
# third),
# alternating, each +RTS -hT -l -i0.02: sK.eventlog and sK.s (-s) of stock's, pK.eventlog and pK.s of ours (K = 0 1 2;
# p0.eventlog
# is a copy of the driver's)
census_runs_side_by_side() {
    local s=$1 i
    shift
    for i in 0 1 2; do
        $ENTER "$s" "$@" +RTS -hT -l -i0.02 -ols$i.eventlog -ss$i.s -RTS > /dev/null 2>&1 || { echo "stock run $i failed" >&3; return 1; }
        [ $i = 0 ] || $ENTER "$EXE" "$@" +RTS -hT -l -i0.02 -olp$i.eventlog -sp$i.s -RTS > /dev/null 2>&1 || { echo "run $i failed" >&3; return 1; }
    done
    cp "$EVENTLOG" p0.eventlog
}

# gc_pause_max_below EVENTLOG GCSTATS SECS: no GC stalls the program. The longest GC's CPU time in GCSTATS (the
# run's +RTS -SGCSTATS: a line a GC, its 4th column the GC's user seconds) is below SECS, and the longest pause
# `rtscope stats` reads from EVENTLOG (wall time; EVENTLOG.stats) below 4 x SECS. The CPU time is the bound that
# holds on a loaded machine: on CI's two cores the other cases stretch a 0.18 s pause to 0.54 s of wall time.
gc_pause_max_below() {
    "$RTSCOPE" stats "$1" > "$1.stats" && grep 'gc pause max' "$1.stats" &&
        awk -v s="$3" '/^gc pause max:/ {exit !($4 < 4 * s)}' "$1.stats" &&
        awk -v s="$3" '/\(Gen: +[0-9]+\)$/ {n++; if ($4 > m) m = $4}
            END {printf "gc cpu max: %.3f s over %d GCs\n", m, n; exit !(n > 0 && m < s)}' "$2"
}

# top_modules_include BANDS_TSV N REGEX...: among the N biggest bands of BANDS_TSV (`hi-check bands`: the module is
# column 6), each REGEX matches some band's module
top_modules_include() {
    local f=$1 n=$2 r
    shift 2
    for r in "$@"; do
        head -"$n" "$f" | cut -f6 | grep -E "$r" >/dev/null || { echo "no module matching $r among the $n biggest bands" >&2; return 1; }
    done
}

# stock_hi_coverage ARGS...: on 9.6, what stock GHC's RTS names with -hi of the case's program (ARGS its arguments):
# `hi-check coverage`'s smallest share of a census's non-RTS bytes in named tables, printed (nothing asserted: the
# record of what a user has without rtscope; Debian's libraries have no -finfo-table-map). Nothing on 9.0, which
# has no IPE.
stock_hi_coverage() {
    [ "$TIER" = 9.6 ] || return 0
    local s
    s=$(stock_exe -O)
    $ENTER "$s" "$@" +RTS -hi -l -i0.05 -olstock.eventlog -RTS > /dev/null 2>&1
    hi_check coverage stock.eventlog 2> /dev/null > stock-cov.txt || true
    echo "stock 9.6 -hi, smallest named share of a census: $(sed -n 's/^min //p' stock-cov.txt)%"
}

# stripped_named ARGS...: the case's program stripped, its symbols kept in a separate debug file that .gnu_debuglink
# names (objcopy --only-keep-debug, as distributions ship them): the output is unchanged and -hi names at least 99%
# of every census's non-RTS bytes, as unstripped (Note [Symbols in a separate debug file], rts/IPEProvenance.c)
stripped_named() {
    objcopy --only-keep-debug "$EXE" dbg.debug && cp "$EXE" dbg && strip dbg && objcopy --add-gnu-debuglink=dbg.debug dbg
    $ENTER ./dbg "$@" +RTS -hi -l -i0.05 -oldbg.eventlog -RTS > dbg.out 2> /dev/null && cmp dbg.out "$STDOUT" &&
        "$RTSCOPE" show dbg.eventlog | grep -E 'provenance index: .*; 1 read from a separate debug file' &&
        hi_check coverage dbg.eventlog > dbg-cov.txt && tail -1 dbg-cov.txt && awk '/^min/ {exit !($2 >= 99)}' dbg-cov.txt
}
