# Shared helpers for rtscope's scripts. Sourced, not run.
# shellcheck shell=bash

RTSCOPE_VERSION=0.1.0
GHC_VERSION=9.0.2
GHC_DEB_VERSION=9.0.2-4

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${RTSCOPE_BUILD:-$top/_build}"
src="$build/src/ghc-$GHC_VERSION"
tree="$build/tree"

# die CAUSE FIX: one line naming the cause and the fix, then exit 1.
die() {
    echo "rtscope: $1${2:+ (fix: $2)}" >&2
    exit 1
}

note() {
    echo "rtscope: $*" >&2
}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
