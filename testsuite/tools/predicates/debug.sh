# shellcheck shell=bash
# testsuite/tools/predicates/debug.sh: predicates of the debugger: rtscope
# debug's outputs (census, blocks, dominators, dups, snapshots). Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

# retainer_path_ends BLOCKS_OUT: per retainer path of `rtscope debug blocks` output, "OBJECT|" and its last four lines, |-separated
retainer_path_ends() {
    awk '/^object /{obj=$2} /^retainer path:/{p=1; n=0; next} p && /^  /{l[++n]=$0; next} p{p=0; print obj "|" l[n-3] "|" l[n-2] "|" l[n-1] "|" l[n]} END{if(p) print obj "|" l[n-3] "|" l[n-2] "|" l[n-1] "|" l[n]}' "$1"
}

# pinned_mostly_empty BLOCKS_OUT N: in `rtscope debug blocks` output, at least N pinned block groups are 0-10% full,
# and more
# than 90% of all pinned block groups are
pinned_mostly_empty() {
    local low all
    low=$(awk '/^ +0- 10%/{print $3}' "$1") && all=$(sed -n 's/^pinned blocks .* in \([0-9]*\) groups.*/\1/p' "$1") || return 1
    echo "low $low of $all"
    [ "$low" -ge "$2" ] && [ $((low * 10)) -gt $((all * 9)) ]
}

# kept_paths_end_at_object BLOCKS_OUT N: exactly N retainer paths of `rtscope debug blocks` output end Kept (with its
# Fragment.hs span) -> PS (BS in GHC 9.6's bytestring 0.11) -> PlainPtr -> the sampled object itself, an ARR_WORDS;
# writes paths.txt
kept_paths_end_at_object() {
    retainer_path_ends "$1" > paths.txt && cat paths.txt &&
        [ "$(grep -cE '^(0x[0-9a-f]+)\|.*main:Main:Kept  at Main .*Fragment\.hs:[0-9]+:[0-9]+-[0-9]+\|.*Data\.ByteString\.Internal(\.Type)?:(PS|BS) .*\|.*base:GHC\.ForeignPtr:PlainPtr .*\|  \1  ARR_WORDS' paths.txt)" = "$2" ]
}

# debug_help_same SUB...: for each SUB, `rtscope help debug SUB` (h.SUB) starts with its usage line, and
# `rtscope debug SUB --help` prints the same
debug_help_same() {
    local s
    for s in "$@"; do
        rtscope help debug "$s" > "h.$s" && head -1 "h.$s" | grep -q "^usage: rtscope debug $s" &&
            rtscope debug "$s" --help | cmp - "h.$s" || { echo "rtscope debug $s: help" >&3; return 1; }
    done
}

# suspect_retains DOMINATORS_OUT N: the bytes `rtscope debug dominators` says its suspect N retains
suspect_retains() { grep -A1 "^suspect $2:" "$1" | sed -n 's/.*retains \([0-9]*\) bytes.*/\1/p'; }

# census_band_bytes CENSUS_OUT ERE: the bytes of the bands of `rtscope debug census` output whose name matches ERE,
# summed
census_band_bytes() { awk -v re="$2" '$3 ~ re {s += $2} END {print s}' "$1"; }

# band_within_pct BYTES BAND PCT: BAND is above 0 and BYTES within PCT% of it
band_within_pct() {
    awk -v r="$1" -v b="$2" -v p="$3" 'BEGIN {exit !(b > 0 && r >= (1 - p / 100) * b && r <= (1 + p / 100) * b)}'
}

# log_suspect_within_pct DOMINATORS_OUT HC_OUT PCT: Service's suspect 1 is a Map node (Data.Map.Internal.Bin) and
# retains
# within PCT% of the -hT bands in HC_OUT (`debug census --heap-census`) of what its request log holds (Map nodes,
# Requests,
# their ByteStrings and buffers, the keys)
log_suspect_within_pct() {
    local r b
    r=$(suspect_retains "$1" 1) &&
        b=$(census_band_bytes "$2" '^(ARR_WORDS|bytestring-[0-9.]*:Data.ByteString.Internal(.Type)?.(PS|BS)|containers-[0-9.]*:Data.Map.Internal.Bin|main:Main.Request|base:GHC.ForeignPtr.PlainPtr|ghc-prim:GHC.Types.I#)$') ||
        return 1
    echo "suspect retains $r, the log's -hT bands $b"
    grep -E '^suspect 1: .*Data.Map.Internal.Bin$' "$1" > /dev/null && band_within_pct "$r" "$b" "$3"
}

# retained_by_constructor DOMINATORS_OUT CON: the bytes the "retained by constructor" table of `rtscope debug
# dominators` gives CON (an extended regular expression: containers-[0-9.]+:... for either GHC's containers)
retained_by_constructor() { awk -v c="$2" '/^retained by constructor/ {p = 1} p && $NF ~ ("^" c "$") {print $1; exit}' "$1"; }

# retained_drops_tenfold BEFORE AFTER CON: CON retains in AFTER a tenth or less of what it retains in BEFORE (two
# `rtscope debug dominators` outputs)
retained_drops_tenfold() {
    local l f
    l=$(retained_by_constructor "$1" "$3") && f=$(retained_by_constructor "$2" "$3") || return 1
    echo "$3 retains $l before, $f after"
    [ "$f" -le $((l / 10)) ]
}

# check_page HTML PNG OUT: consumer/web/test/check-page.mjs opens the page HTML in headless Chromium (screenshot PNG)
# and
# writes its account to OUT (shown on failure)
check_page() { node "$TOP/consumer/web/test/check-page.mjs" "$1" "$2" > "$3" || { cat "$3" >&3; return 1; }; }

# dominators_page_ok PAGE_JSON: check_page's account of a `debug dominators --html` page of Service: no script, a
# "Suspect 1" heading naming Data.Map.Internal.Bin, 3 rows or more in each of the by-info, by-constructor and by-module
# tables, and the first retainer path from a (root)
dominators_page_ok() {
    python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))
assert p["scripts"] == 0, p
assert any("Data.Map.Internal.Bin" in h and h.startswith("Suspect 1") for h in p["headings"]), p["headings"]
assert all(p["tables"].get(t, 0) >= 3 for t in ("by-info", "by-constructor", "by-module")), p["tables"]
assert "(root)" in p["pre"][0], p["pre"]' "$1"
}

# dups_first_group DUPS_OUT N SIZE: the first group of `rtscope debug dups` output is N main:Main:Dup closures
# (CONSTR_2_0, with their Fragment.hs span and an example address) of SIZE bytes each, (N - 1) * SIZE bytes to share
dups_first_group() {
    sed -n 2p "$1" | grep -E "^ +$2 +$3 +$(( ($2 - 1) * $3 ))  CONSTR_2_0 main:Main:Dup  at Main .*Fragment\.hs:[0-9]+:[0-9]+-[0-9]+  \(e\.g\. 0x[0-9a-f]+\)\$" >/dev/null
}

# census_has_types CENSUS_OUT ERE...: `rtscope debug census --by type` output has a row for each closure type ERE;
# names the first missing
census_has_types() {
    local f=$1 t
    shift
    for t in "$@"; do
        grep -E "^ +[0-9]+ +[0-9]+  $t\$" "$f" >/dev/null || { echo "no $t in the census" >&3; return 1; }
    done
}

# debug_kinds_census_complete CENSUS_OUT: the census by type of DebugKinds has every closure kind the program holds
debug_kinds_census_complete() {
    census_has_types "$1" PAP AP_STACK THUNK_SELECTOR BLACKHOLE BLOCKING_QUEUE TVAR TREC_CHUNK 'MVAR_(CLEAN|DIRTY)' \
        'MUT_VAR_(CLEAN|DIRTY)' WEAK COMPACT_NFDATA 'MUT_ARR_PTRS_(CLEAN|DIRTY)' 'MUT_ARR_PTRS_FROZEN_(CLEAN|DIRTY)' \
        'SMALL_MUT_ARR_PTRS_(CLEAN|DIRTY)' ARR_WORDS TSO STACK PRIM MUT_PRIM IND_STATIC FUN_STATIC THUNK_STATIC
}

# debug_kinds_holders_are HOLDERS_OUT: each value of DebugKinds that one holder only keeps (holders.out,
# debug-kinds-session)
# ends its retainer path at the closure kind that holds it
debug_kinds_holders_are() {
    {
        printf '%s\n' 'PapOnly PAP' 'PapSmall PAP' 'ApsOnly AP_STACK' 'TVarOnly TVAR' 'TrecOnly TREC_CHUNK' 'MVarOnly MVAR' \
            'CmpOnly CONSTR ghc-compact-0.1.0.0:GHC.Compact:Compact' 'WeakOnly WEAK' 'ArrOnly MUT_ARR_PTRS' \
            'SmallOnly SMALL_MUT_ARR_PTRS' 'BigFrameOnly STACK'
        [ "$TIER" = 9.0 ] || echo 'ContOnly CONTINUATION'
    } | diff -u - "$1"
}

# census_counts_leaks RUN_OUT CENSUS_OUT...: DebugLeak says (RUN_OUT) how many Leak values it retains, and each census
# (--by constructor) counts exactly that many main:Main:Leak
census_counts_leaks() {
    local n f
    n=$(sed -n 's/^Leak values retained: //p' "$1") || return 1
    [ -n "$n" ] || { echo "$1: no 'Leak values retained'" >&3; return 1; }
    shift
    for f in "$@"; do
        grep -E "^ *$n +[0-9]+  main:Main:Leak\$" "$f" >/dev/null || { echo "$f: not $n main:Main:Leak" >&3; return 1; }
    done
}

# build_with_debug_lib OUT CC FLAGS... SOURCES...: compile SOURCES with consumer/lib/debug's sources and headers, the
# lib/base they build on (as consumer/Makefile's fuzz-snapshot does) and libzstd, into OUT
build_with_debug_lib() {
    local out=$1 cc=$2 d=$TOP/consumer/lib/debug
    shift 2
    "$cc" -std=c11 -D_DEFAULT_SOURCE -g -O1 -I"$d" -I"$TOP/consumer/include" -I"$TOP/includes" "$@" "$d"/*.c \
        "$TOP"/consumer/lib/base/*.c -lzstd -o "$out"
}

# bands_equal_but_pinned EVENTLOG_BANDS WALK_BANDS: "BAND BYTES" lines equal; on 9.6, whose -hT counts each object in a
# pinned block where the walk (and 9.0's -hT) counts the block group whole, all but ARR_WORDS equal and the
# census's ARR_WORDS at most the walk's
bands_equal_but_pinned() {
    [ "$TIER" != 9.0 ] || { diff -u "$1" "$2"; return; }
    diff -u <(grep -v '^ARR_WORDS ' "$1") <(grep -v '^ARR_WORDS ' "$2") || return 1
    local a b
    a=$(awk '$1 == "ARR_WORDS" {print $2}' "$1") b=$(awk '$1 == "ARR_WORDS" {print $2}' "$2")
    [ "${a:-0}" -le "${b:-0}" ] || { echo "ARR_WORDS: the census's $a > the walk's $b" >&3; return 1; }
}
