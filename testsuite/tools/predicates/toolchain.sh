# shellcheck shell=bash
# testsuite/tools/predicates/toolchain.sh: predicates of the toolchain
# scripts, the overlay's package databases, the upstream series. Sourced after
# testsuite/tools/predicates.sh (its rules hold here).

# stale_patch: a patch of rts/Stats.c whose context is in no GHC source
stale_patch() { printf -- '--- a/rts/Stats.c\n+++ b/rts/Stats.c\n@@ -1,3 +1,3 @@\n-no such line\n+x\n more\n'; }

# pkg_lists GHC_PKG NAME...: `GHC_PKG list` (no database flags) names every package NAME; names each one missing
pkg_lists() {
    local pkg=$1 names n missing=0
    shift
    names=$("$pkg" list --simple-output --names-only | tr ' ' '\n') || return 1
    for n in "$@"; do
        grep -qx -- "$n" <<<"$names" || { echo "$pkg list does not name $n" >&3; missing=1; }
    done
    return $missing
}

# top_field_under GHC_PKG UNIT FIELD DIR: the first FIELD `GHC_PKG field UNIT FIELD` prints (the unit's instance
# highest on the stack, the one ghc links) is DIR or lies under it
top_field_under() {
    local v
    v=$("$1" field "$2" "$3" --simple-output | head -1) || return 1
    case "$v" in
        "$4" | "$4"/*) return 0 ;;
    esac
    echo "$1 field $2 $3: first value '$v' is not under $4" >&3
    return 1
}

# pkg_check_like_stock GHC_PKG: `GHC_PKG check` exits 0, or prints only lines Debian's `ghc-pkg check` prints too;
# writes pkgcheck-overlay.txt, pkgcheck-stock.txt
pkg_check_like_stock() {
    "$1" check >pkgcheck-overlay.txt 2>&1 && return 0
    /usr/bin/ghc-pkg check >pkgcheck-stock.txt 2>&1
    grep -vxFf pkgcheck-stock.txt pkgcheck-overlay.txt >&3 || return 0
    echo "$1 check: the lines above are not in Debian's ghc-pkg check" >&3
    return 1
}

# global_packages GHC_PKG: the names of the packages in GHC_PKG's global database, but rts, sorted
global_packages() { "$1" list --global --simple-output --names-only | tr ' ' '\n' | grep -vx rts | sort; }

# patches_named_and_tested DIR: every DIR/*.patch has a `rts: ` subject and names a test (a Test: line or a file under
# testsuite/tests/)
patches_named_and_tested() {
    local p
    for p in "$1"/*.patch; do
        grep -E '^Subject: \[PATCH [0-9]+/[0-9]+\] rts: ' "$p" > /dev/null || { echo "$p: no 'rts: ' subject"; return 1; }
        grep -E '^Test: |testsuite/tests/' "$p" > /dev/null || { echo "$p: names no test"; return 1; }
    done
}

# fake_apt DIR FAILS: an apt-get in DIR/bin (put it first on PATH) that fails FAILS times as apt does when another
# process holds the package lists' lock, then succeeds; DIR/calls counts its calls
fake_apt() {
    mkdir -p "$1/bin" && : > "$1/calls"
    printf '#!/bin/sh\necho x >> "%s/calls"\n[ "$(wc -l < "%s/calls")" -gt %s ] && exit 0\n%s\nexit 100\n' \
        "$1" "$1" "$2" 'echo "E: Unable to lock directory /var/lib/apt/lists/" >&2' > "$1/bin/apt-get"
    chmod +x "$1/bin/apt-get"
}

# apt_get_with WAIT ARGS...: scripts/lib.sh's apt_get ARGS, waiting at most WAIT s for apt's locks (stderr in apt.err)
apt_get_with() { RTSCOPE_APT_WAIT=$1 bash -c '. "$TOP/scripts/lib.sh"; shift; apt_get "$@"' _ "$@" 2> apt.err; }

# hold_lock FILE SECS: hold FILE's fcntl lock (as apt and dpkg take it) for SECS s, in the background
hold_lock() {
    python3 -c 'import fcntl,sys,time; f=open(sys.argv[1],"a"); fcntl.lockf(f,fcntl.LOCK_EX); time.sleep(float(sys.argv[2]))' \
        "$1" "$2" & sleep 0.5
}

# upstream_tests_pass: the GHC-format tests of the case's tier's upstream series (scripts/check-upstream-tests) all
# pass, at least one, on its overlay compiler ($OVERLAY_GHC on 9.0; 9.6's in its build root); output in tests.txt
upstream_tests_pass() {
    local g=$OVERLAY_GHC
    [ "$TIER" = 9.0 ] || g=$TOP/_build/$TIER/bin/ghc
    RTSCOPE_GHC=$TIER "$TOP/scripts/check-upstream-tests" "$g" > tests.txt 2>&1 || { cat tests.txt; return 1; }
    cat tests.txt
    tail -n 1 tests.txt | grep -E '^[1-9][0-9]* passed, 0 failed$' > /dev/null
}
