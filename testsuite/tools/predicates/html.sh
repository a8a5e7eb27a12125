# shellcheck shell=bash
# testsuite/tools/predicates/html.sh: predicates of the HTML report: its
# --json, the page in headless Chromium. Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

# check_report HTML SHOTS OUT ARGS...: consumer/web/test/check-report.mjs opens the report HTML in headless Chromium
# (screenshots in SHOTS; ARGS: --search, --sort) and writes its account to OUT (shown on failure)
check_report() {
    local html=$1 shots=$2 out=$3
    shift 3
    node "$TOP/consumer/web/test/check-report.mjs" "$html" "$shots" "$@" > "$out" || { cat "$out" >&3; return 1; }
}

# browser_ok JSON [JQ]: check_report's account JSON: the page got ready with no error and no request, and JQ (if
# given) holds
browser_ok() { jq -e ".ready and (.errors|length)==0 and (.requests|length)==0 and (${2:-true})" "$1"; }

# html_first_row JSON LABEL MODULE CTYPE TYPE DESC: the first table row of `rtscope html --json` output JSON has that
# label, module, closure type, type and description
html_first_row() {
    jq -e --arg l "$2" --arg m "$3" --arg c "$4" --arg t "$5" --arg d "$6" \
        '.strings[.table.label[0]] == $l and .strings[.table.module[0]] == $m and .strings[.table.ctype[0]] == $c and .strings[.table.type[0]] == $t and .strings[.table.desc[0]] == $d' "$1"
}

# module_search_found JSON BROWSER TEXT: more than 1 and fewer than 40 table rows of JSON (`rtscope html --json`) have a
# module containing TEXT (lower case; any case matches), and the first search of BROWSER (check_report) showed exactly
# them,
# with no mismatch
module_search_found() {
    local want
    want=$(jq --arg s "$3" '. as $d | [$d.table.module[] | $d.strings[.] | select(ascii_downcase | contains($s))] | length' "$1") || return 1
    test "$want" -gt 1 && test "$want" -lt 40 &&
        jq -e --argjson w "$want" '.search[0].rows == $w and .search[0].mismatches == 0' "$2"
}

# chart_keeps_bands K N < JSON: `rtscope html --json` output charts K bands by name and the other N - K as one more
# series
chart_keeps_bands() {
    jq -e --argjson k "$1" --argjson n "$2" '(.profile.chart.labels|length) == $k and .profile.chart.other == $n - $k and (.profile.chart.series|length) == $k + 1'
}

# html_labels JSON: the band labels of `rtscope html --json` output JSON, in table order, one JSON array
html_labels() { jq -c '[.table.label[] as $l | .strings[$l]]' "$1"; }

# same_samples_and_labels A B: two `rtscope html --json` outputs have as many samples, and the same band labels in the
# same order
same_samples_and_labels() {
    test "$(jq '.profile.meta.samples' "$1")" = "$(jq '.profile.meta.samples' "$2")" && test "$(html_labels "$1")" = "$(html_labels "$2")"
}

# labels_named JSON N: `rtscope html --json` output JSON has more than N band labels, all different, none empty or a
# bare `Value...`
labels_named() {
    jq -e --argjson n "$2" '. as $d | [$d.table.label[] | $d.strings[.]] | (length > $n) and (unique | length) == length and all(. != "" and (startswith("Value") | not))' "$1"
}

# html_json_check CANONICAL JSON N: checkers/html-json-check.py, the numbers of `rtscope html --json` against ghc-events
html_json_check() { python3 "$TESTSUITE/tools/checkers/html-json-check.py" "$@"; }

# serve_bg SECS TARGET... [OPTIONS]: rtscope serve on a free port for at most SECS s (export_env bg: pid in serve.pid,
# messages in serve.err), once it listens; its URL in serve.url
serve_bg() {
    local secs=$1
    shift
    export_env bg serve "$secs" "$RTSCOPE" serve "$@" --listen 127.0.0.1:0 &&
        wait_until 10 grep -q '^rtscope serve: http://' serve.err &&
        sed -n 's#^rtscope serve: \(http://[^ ]*\)$#\1#p' serve.err > serve.url
}

# check_serve OUT ARGS...: consumer/web/test/check-serve.mjs, a user's session with the served page in headless
# Chromium (ARGS: --restart CMD, --soak SECS, --watch-only), screenshots in shots/; its account in OUT (shown on failure)
check_serve() {
    local out=$1
    shift
    node "$TOP/consumer/web/test/check-serve.mjs" "$(cat serve.url)" shots "$@" > "$out" || { cat "$out" >&3; return 1; }
}

# http_answers URL CODE REQUEST: the server at URL answers the raw REQUEST (clients/http-raw.py: escapes, {URL:N} and
# {HDR:N} fillers) with status CODE ("closed": closes without one)
http_answers() {
    local got
    got=$(python3 "$TESTSUITE/tools/clients/http-raw.py" "$1" "$3") || return 1
    [ "$got" = "$2" ] || { echo "answered $got, not $2: $3" >&3; return 1; }
}

# rss_kib PID: the resident memory of process PID, in KiB
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# sample_rss PID SECS OUT: the resident memory of PID (KiB) once a second for SECS s, one line each, into OUT (in the
# background)
sample_rss() { (for ((i = 0; i < $2; i++)); do rss_kib "$1" || break; sleep 1; done > "$3") & }

# open_streams N URL: N event streams of URL held open by curl in the background (their pids in streams.pids, each
# one's HTTP status in stream-K.code once it ends, its body in stream-K.out)
open_streams() {
    local k
    : > streams.pids
    for k in $(seq "$1"); do
        curl -sS -N -o "stream-$k.out" -w '%{http_code}\n' "$2" > "stream-$k.code" 2>/dev/null &
        echo $! >> streams.pids
    done
}

# streams_refused: how many of open_streams' streams were answered 503 (they end at once)
streams_refused() { cat stream-*.code 2>/dev/null | grep -c '^503$' || true; }

# streams_refused_at_least N: at least N of open_streams' streams were answered 503
streams_refused_at_least() { [ "$(streams_refused)" -ge "$1" ]; }

# close_streams: end open_streams' curls
close_streams() { xargs kill < streams.pids 2>/dev/null || true; }

# check_stacks HTML SHOTS OUT NAME...: consumer/web/test/check-stacks.mjs opens the report HTML of an eventlog with
# sampled stacks in headless Chromium (screenshots in SHOTS), measures the flame graph's boxes of each NAME, hovers,
# zooms, switches to time, reads the sites table, and writes its account to OUT (shown on failure)
check_stacks() {
    local html=$1 shots=$2 out=$3
    shift 3
    node "$TOP/consumer/web/test/check-stacks.mjs" "$html" "$shots" "$@" > "$out" || { cat "$out" >&3; return 1; }
}

# stacks_share OUT NAME LO HI: check_stacks' OUT has NAME's share of the allocation samples (the page's data) between
# LO and HI, its boxes drawn as wide as that within half a point, and one of them labelled NAME
stacks_share() {
    jq -e --arg n "$2" --argjson lo "$3" --argjson hi "$4" \
        '.shares[$n] | .json >= $lo and .json <= $hi and (.drawn - .json) * (.drawn - .json) < 0.000025 and .labelled >= 1' "$1"
}

# stacks_tree_ok JSON: the "samples" member of `rtscope html --json` output JSON is a tree in preorder (each parent
# row before its children), no child heavier than its parent, children summing to at most their parent, the root
# the kind's total, bounded (at most 2 x max_nodes rows)
stacks_tree_ok() {
    jq -e '[.samples.alloc, .samples.time | select(. != null) | . as $k | .tree as $t | ($t.parent | length) as $n
        | ($t.weight[0] == $k.weight) and ($n <= 2 * $k.max_nodes + 1)
        and ([range(1; $n) | $t.parent[.] as $p | $p >= 0 and $p < . and $t.weight[.] <= $t.weight[$p]] | all)
        and ([range(0; $n) as $i | [range(1; $n) | select($t.parent[.] == $i) | $t.weight[.]] | add // 0
             | . <= $t.weight[$i]] | all)] | all' "$1"
}

# stacks_first_site OUT STATS NAME: the first row of check_stacks' sites table is NAME (a substring) and is the first
# `alloc site` of `rtscope stats` output STATS, with the same bytes
stacks_first_site() {
    local first line
    first=$(jq -r '.sites.first' "$1")
    line=$(grep -m1 '^alloc site:' "$2")
    echo "page: $first; stats: $line"
    case "$first" in *"$3"*) ;; *) return 1 ;; esac
    [ "${line##* samples }" = "$first" ] &&
        [ "$(echo "$line" | awk '{print $4}')" = "$(jq -r '.sites.firstBytes' "$1")" ]
}
