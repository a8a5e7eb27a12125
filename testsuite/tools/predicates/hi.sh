# shellcheck shell=bash
# testsuite/tools/predicates/hi.sh: predicates of -hi and info-table
# provenance. Sourced after testsuite/tools/predicates.sh (its rules hold
# here).

# layout_names_like_dwarf BOTH.TSV: of the local tables of Main and BindingLayoutLib named by both runs (joined
# `rtscope ipe` rows: DWARF's fields 2-8, layout's 9-14), at least 8 of each module, every one has the same
# module and at least 80% the same top-level binding ($wf, f1 and f.go count as f)
layout_names_like_dwarf() {
    awk -F'\t' 'function base(l) { sub(/^\$w/, "", l); sub(/[.].*$/, "", l); sub(/[0-9]+$/, "", l); return l }
        ($6 == "Main" || $6 == "BindingLayoutLib") && $2 ~ /^(s[0-9a-zA-Z]+|sat_s[0-9a-zA-Z]+)_info$/ && $9 == "" {
            n++; m[$6]++
            if ($13 != $6) { print "module differs: " $0; bad = 1 }
            if (base($5) == base($12)) same++; else print "binding differs: " $2 " dwarf " $5 " layout " $12
        }
        END {
            printf "%d local tables (Main %d, BindingLayoutLib %d), %d with the same binding\n", n, m["Main"], m["BindingLayoutLib"], same
            exit bad || m["Main"] < 8 || m["BindingLayoutLib"] < 8 || same < 0.8 * n
        }' "$1"
}

# hi_explains_missing_names DP: the -Dp output DP has at most two "rtscope: -hi:" lines besides the provenance
# index's, reports the index's objects, and says there is no DWARF
hi_explains_missing_names() {
    test "$(grep 'rtscope: -hi:' "$1" | grep -vc 'provenance index')" -le 2 &&
        grep -q 'rtscope: -hi: provenance index: [0-9]* objects' "$1" &&
        grep -q 'rtscope: -hi: no DWARF' "$1"
}

# hp_bands_named HP: no band of the .hp is "(none)" or a bare info-table address
hp_bands_named() { ! grep -E '^\(none\)|^0x[0-9a-f]+[[:space:]]' "$1"; }

# hp_bands_once_per_sample HP: no band appears twice in one sample of the .hp
hp_bands_once_per_sample() {
    awk '/^BEGIN_SAMPLE/ {delete seen; next} /^(END_SAMPLE|MARK)/ {next} NF == 2 && $1 in seen {print "twice in one sample: " $1; bad = 1} NF == 2 {seen[$1] = 1} END {exit bad}' "$1"
}

# hi_check ARGS...: checkers/hi-check, HiCheck's independent reading (ghc-events) of -hi eventlogs
hi_check() { "$TESTSUITE/tools/checkers/hi-check" "$@"; }

# ipe_by_address EVENTLOG: `rtscope ipe --no-header` rows of EVENTLOG sorted by info-table address (for join)
ipe_by_address() { "$RTSCOPE" ipe --no-header "$1" | sort -t $'\t' -k1,1; }

# top_band_at_constructor BANDS_TSV SRC CON: the top band's source span (column 7 of `hi-check bands`) is constructor
# CON's
# in SRC's one-line `data CON = CON ...`: from CON after the `=` to the end of the line
top_band_at_constructor() {
    local l t pre
    l=$(grep -n "^data $3" "$2" | cut -d: -f1) && t=$(sed -n "${l}p" "$2") || return 1
    pre=${t%%= $3*}
    head -1 "$1" | cut -f7 | grep -Ex "(.*/)?$(basename "$2" .hs)\.hs:$l:$(( ${#pre} + 3 ))-${#t}"
}

# ipe_record_span EVENTLOG SRC CON COL: `rtscope ipe` gives Main_CON_con_info the span of a record constructor over
# two lines
# of SRC: from column COL of the `data CON` line to the end of the next one
ipe_record_span() {
    local l t
    l=$(grep -n "^data $3" "$2" | cut -d: -f1) && t=$(sed -n "$((l + 1))p" "$2") || return 1
    "$RTSCOPE" ipe "$1" | grep "Main_$3_con_info" | grep -E "$(basename "$2" .hs)\.hs:\($l,$4\)-\($((l + 1)),${#t}\)"
}

# where_from_row FILE TAG LABEL MODULE [TYPE_REGEX]: WhereFrom's line TAG in FILE names label LABEL and module MODULE
# (and a type matching TYPE_REGEX)
where_from_row() {
    awk -F'\t' -v t="$2" -v l="$3" -v m="$4" -v ty="${5:-}" '$1 == t {found = 1; ok = ($5 == l && $6 == m && $4 ~ ty)}
        END {exit !(found && ok)}' "$1" || { echo "whereFrom of $2: want $3 in $4, got: $(grep "^$2	" "$1")" >&2; return 1; }
}
