# Shared helpers for rtscope's scripts. Sourced, not run.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Note [Two GHCs, one tree]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# rtscope builds for two of Debian's GHCs: 9.0.2 (bookworm, oldstable) and
# 9.6.6 (trixie, stable). RTSCOPE_GHC (make's GHC=) picks one, as 9.0,
# 9.0.2, 9.6 or 9.6.6; unset, it is the host suite's own. Everything that
# differs between the two is set here, once:
#   GHC_VERSION, GHC_DEB_VERSION  the Debian package a toolchain is built from
#   GHC_SUITE                     the Debian suite that ships it
#   GHC_SERIES                    9.0 or 9.6: names the per-version layer
#                                 (scripts/rts-SERIES.mk, rts-patches/SERIES/)
#   build                         its build directory: _build (9.0.2) or
#                                 _build/9.6, each with src/, tree/, lib/,
#                                 bin/ (the overlay) and, for a GHC of
#                                 another suite than the host's, root/ (a
#                                 debootstrap build root) and enter
# A toolchain whose suite is not the host's is built and used inside its
# build root (scripts/buildroot): `$build/enter CMD...` runs CMD there, in
# the current directory, with the checkout at the same path; on a host of
# its own suite, enter just runs CMD.
host_suite() {
    sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | head -1
}
# outside_root: the GHC's suite is not the host's and this runs outside
# its build root, so what needs the GHC's environment enters it first
# ($build/enter).
outside_root() { [ -z "${RTSCOPE_IN_ROOT:-}" ] && [ "$(host_suite)" != "$GHC_SUITE" ]; }
case "${RTSCOPE_GHC:-}" in
    '') case "$(host_suite)" in trixie) ghc_want=9.6 ;; *) ghc_want=9.0 ;; esac ;;
    9.0 | 9.0.2) ghc_want=9.0 ;;
    9.6 | 9.6.6) ghc_want=9.6 ;;
    *)
        echo "rtscope: GHC=$RTSCOPE_GHC is not a GHC rtscope builds for (fix: GHC=9.0 or GHC=9.6)" >&2
        exit 2
        ;;
esac
# shellcheck disable=SC2034
case $ghc_want in
    9.0) GHC_VERSION=9.0.2 GHC_DEB_VERSION=9.0.2-4 GHC_SUITE=bookworm GHC_SERIES=9.0 ;;
    9.6) GHC_VERSION=9.6.6 GHC_DEB_VERSION=9.6.6-4 GHC_SUITE=trixie GHC_SERIES=9.6 ;;
esac
export RTSCOPE_GHC=$GHC_VERSION
# Where a series lives, and where GHC's tree keeps the RTS's public headers
# (includes/ in 9.0.2, rts/include/ since 9.4): the project's includes/
# files go there.
# The installed GHC's layout: its libdir (what ghc -B names), its public
# RTS headers (stock_inc), where its RTS libraries are (stock_rts_a, the
# static ones, stock_rts_so the shared ones), the rts package's file in its
# database and its vanilla library's name (rts_conf, rts_lib_a: the
# overlay's are named alike), and the headers its configure generated, which an
# RTS-only build takes from there (the very ones Debian's libraries were
# compiled against; since 9.4 the event-type headers are generated too).
# shellcheck disable=SC2034
case $GHC_SERIES in
    9.0)
        patches="$top/rts-patches" rts_inc=includes
        stock_libdir=/usr/lib/ghc stock_inc=/usr/lib/ghc/include
        stock_rts_a=/usr/lib/ghc/rts stock_rts_so=/usr/lib/ghc/rts
        rts_conf=rts.conf rts_lib_a=libHSrts.a
        GENERATED_HEADERS=(ghcautoconf.h ghcplatform.h DerivedConstants.h ghcversion.h)
        ;;
    *)
        patches="$top/rts-patches/$GHC_SERIES" rts_inc=rts/include
        stock_libdir=/usr/lib/ghc/lib
        stock_inc=$stock_libdir/x86_64-linux-ghc-$GHC_VERSION/rts-1.0.2/include
        stock_rts_so=$stock_libdir/x86_64-linux-ghc-$GHC_VERSION stock_rts_a=$stock_rts_so/rts-1.0.2
        rts_conf=rts-1.0.2.conf rts_lib_a=libHSrts-1.0.2.a
        GENERATED_HEADERS=(ghcautoconf.h ghcplatform.h DerivedConstants.h ghcversion.h
            rts/EventLogConstants.h rts/EventTypes.h)
        ;;
esac
# rtscope's version is written once, in the RTS's rts/Rtscope.h (empty when
# a script runs from a partial copy of the repository, as a test makes one).
RTSCOPE_VERSION=$(sed -n 's/^#define RTSCOPE_VERSION "\(.*\)"$/\1/p' "$top/rts/Rtscope.h" 2>/dev/null || true)
build="${RTSCOPE_BUILD:-$top/_build}"
[ "$GHC_SERIES" = 9.0 ] || build="$build/$GHC_SERIES"
src="$build/src/ghc-$GHC_VERSION"
tree="$build/tree"
# What outlives a checkout (Note [A compiler cache across checkouts]).
cache="${RTSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtscope}"

# Note [A compiler cache across checkouts]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Each GHC's RTS is some 2,300 C files (every way Debian ships), minutes of
# CPU that a fresh clone (CI's, a second checkout) would spend again on the
# same sources. They go through ccache (Debian's), its cache in
# $cache/ccache ($RTSCOPE_CACHE, by default ~/.cache/rtscope), which a build
# root binds at the same path (scripts/buildroot). ccache keys an object by
# the compiler, its flags and the preprocessed source, so a changed patch,
# header or flag compiles anew. Paths under the checkout are hashed
# relative to it (CCACHE_BASEDIR), so another clone hits; the working
# directory is not hashed (CCACHE_NOHASHDIR: the RTS is compiled with -g,
# which would hash it), so an object's DW_AT_comp_dir may name the checkout
# that first compiled that same source. ccache does not hash
# -fmacro-prefix-map (tried: an object compiled with one map is served for
# another), so rts.mk derives its map from the tree's name as the compiler
# sees it, never from a path it may rewrite. RTSCOPE_CCACHE=0 compiles
# without. Cmm and Haskell go through ghc and are not cached.
#
# use_ccache: sets ccache to the launcher for rts.mk's CCACHE (empty: none)
# and exports ccache's environment.
use_ccache() {
    ccache=
    [ "${RTSCOPE_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null || return 0
    mkdir -p "$cache/ccache" || return 0
    export CCACHE_DIR="$cache/ccache" CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=1
    ccache=ccache
}

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

# apt_get ARGS...: apt-get as root that waits, up to RTSCOPE_APT_WAIT seconds
# (default 600), for the locks another apt or dpkg process holds (an
# unattended upgrade, an install in another terminal): dpkg's through apt's
# DPkg::Lock::Timeout, the package lists' (`update`, which that option does
# not cover) by trying again every 2 s. Past the wait it fails as apt-get
# does, with apt's own message on stderr.
apt_get() {
    local wait=${RTSCOPE_APT_WAIT:-600} start err rc told=
    start=$(date +%s)
    err=$(mktemp)
    while :; do
        rc=0
        as_root apt-get -o DPkg::Lock::Timeout="$wait" "$@" 2>"$err" || rc=$?
        if [ "$rc" -ne 0 ] && grep -q 'Unable to lock\|Could not get lock' "$err" &&
            [ $(($(date +%s) - start)) -lt "$wait" ]; then
            [ -n "$told" ] || note "another apt process holds its lock; waiting for it (up to ${wait}s)"
            told=1
            sleep 2
            continue
        fi
        cat "$err" >&2
        rm -f "$err"
        return "$rc"
    done
}

# ---------------------------------------------------------------- packages
# A build root's (scripts/buildroot): the GHC, what its RTS links (ffi,
# numa for 9.6, libdw/libelf and zstd for the series), the build tools,
# the suite's own ghc-events, the tests' peer parser of its eventlogs,
# cabal-install, which users build their programs with, and git, which
# scripts/check-upstream-series applies the exported series with.
# shellcheck disable=SC2034
ROOT_PACKAGES=(
    ghc ghc-prof libffi-dev libnuma-dev libdw-dev libelf-dev libzstd-dev libgmp-dev
    libncurses-dev gcc make patch dpkg-dev xz-utils pkg-config binutils ccache
    libghc-ghc-events-dev cabal-install git
)
# A whole GHC (scripts/build-ghc): `apt-get build-dep ghc` for amd64 without
# the documentation tools (debian/control of ghc 9.0.2-4: pkg-config, ghc,
# libgmp-dev, libffi-dev, libncurses-dev), plus autoreconf for ./boot
# (Debian's patches change configure.ac) and libdw/libelf for
# --enable-dwarf-unwind and rtscope's provenance.
# shellcheck disable=SC2034
FULL_GHC_PACKAGES=(
    ghc gcc make patch pkg-config python3 perl xz-utils autoconf automake
    libgmp-dev libffi-dev libncurses-dev libdw-dev libelf-dev
)
# Debian packages of the patched GHC (scripts/build-deb): the rest of ghc's
# Build-Depends (packaging tools; python3-sphinx because Debian's rules
# build the users guide).
# shellcheck disable=SC2034
DEB_PACKAGES=(
    debhelper haskell-devscripts-minimal devscripts grep-dctrl dpkg-dev quilt
    python3-sphinx fakeroot
)

# GHC's own testsuite (scripts/ghc-testsuite): its driver is Python 3, and
# ghostscript checks that the PostScript hp2ps draws from a test's heap
# profile is valid (without gs the driver skips that check). hp2ps, hpc
# and hsc2hs come with ghc, profiling libraries with ghc-prof. Nine tests
# of concurrent/ and ffi/ need random, async or parallel (reqlib; without
# them they are skipped): performGC, conc023, throwto001, ffi009, ...
# shellcheck disable=SC2034
GHC_TESTSUITE_PACKAGES=(
    python3 ghostscript ghc-prof
    libghc-random-dev libghc-async-dev libghc-parallel-dev
)
# 9.6's driver looks for a UTF-8 locale and calls git (its performance
# notes), and tests of C++ foreign code (T11829, T20199) need g++: a minbase
# root has none of them.
[ "$GHC_SERIES" = 9.0 ] || GHC_TESTSUITE_PACKAGES+=(locales-all git g++)

# ---------------------------------------------------------------- the tree
# Shared by scripts/prepare-tree (the RTS-only tree), scripts/build-ghc (a
# whole GHC), scripts/export-upstream and scripts/build-deb, so that every
# way of building applies the very same series and files.

# series_names: the patches of rts-patches/series, in order (unchecked:
# call check_series first, in the main shell, since a die inside $(...)
# would only leave the subshell).
series_names() {
    local series="$patches/series"
    [ -f "$series" ] || return 0
    sed -e 's/#.*//' "$series" | awk 'NF { print $1 }'
}

# check_series: every patch the series names exists.
check_series() {
    local p
    for p in $(series_names); do
        [ -f "$patches/$p" ] ||
            die "${patches#"$top"/}/series names $p, which does not exist" "add the file or drop it from series"
    done
}

# apply_patch DIR NAME: apply rts-patches/NAME to the tree DIR. GNU patch
# replaces files rather than writing through hard links, so a tree made
# with `cp -al` from the pristine source leaves the source pristine.
apply_patch() {
    local out
    if ! out=$(patch -d "$1" -p1 --forward --batch --no-backup-if-mismatch -r - <"$patches/$2" 2>&1); then
        echo "$out" | grep -i "fail\|reject\|can't find" | head -5 >&2
        die "patch ${patches#"$top"/}/$2 does not apply to ghc $GHC_DEB_VERSION" "refresh it against ${src#"$top"/}"
    fi
}

# apply_series DIR: every patch of the series, in order.
apply_series() {
    local p
    check_series
    for p in $(series_names); do apply_patch "$1" "$p"; done
}

# project_files: the project's own RTS files (rts/, includes/) that the
# series takes, one a line, as paths in the project: those its `files`
# lists when it has one (a GHC that has a feature upstream takes none of
# its files, and one whose series is young only those its patches hook
# in: See Note [One RTS file, two GHCs] in rts/RtscopeGhc.h), else all.
project_files() {
    local d
    # A GHC whose series is still empty is rebuilt as Debian ships it: the
    # project's files come with the patches that hook them in.
    [ -n "$(series_names)" ] || return 0
    if [ -f "$patches/files" ]; then
        sed -e 's/#.*//' "$patches/files" | awk 'NF { print $1 }'
        return 0
    fi
    for d in rts includes; do
        [ -d "$top/$d" ] || continue
        (cd "$top" && find "$d" -type f ! -name '*~' | LC_ALL=C sort)
    done
}

# copy_project_files DIR [FILE...]: copy the given project files (all of
# them if none given) into the tree DIR at the same paths.
copy_project_files() {
    local dir=$1 f t
    shift
    if [ $# -eq 0 ]; then
        # shellcheck disable=SC2046
        set -- $(project_files)
    fi
    for f in "$@"; do
        [ -f "$top/$f" ] || die "project file $f does not exist" "fix the list that names it"
        t=$f
        case $f in includes/*) t="$rts_inc/${f#includes/}" ;; esac
        mkdir -p "$dir/$(dirname "$t")"
        rm -f "$dir/$t"
        cp "$top/$f" "$dir/$t"
    done
}

# add_configure_outputs DIR: for an RTS-only build (no configure run), the
# headers GHC's configure generates, from the installed GHC (the very ones
# Debian's libraries were compiled against), and fs.c/fs.h as configure
# copies them. A whole-GHC build runs configure instead.
add_configure_outputs() {
    local h f
    for h in "${GENERATED_HEADERS[@]}"; do
        [ -f "$1/$rts_inc/$h" ] || cp "$stock_inc/$h" "$1/$rts_inc/$h"
    done
    for f in fs.c fs.h; do
        rm -f "$1/rts/$f"; cp "$1/utils/fs/$f" "$1/rts/$f"
    done
}

# stage_run NAME STAMPDIR CMD...: run one stage of a long build unless its
# stamp exists; print its elapsed time; stamp it on success.
stage_run() {
    local name=$1 stamps=$2 t0 t1
    shift 2
    if [ -f "$stamps/$name.done" ]; then
        note "stage $name: done already ($(cat "$stamps/$name.done")), skipped"
        return 0
    fi
    note "stage $name: started $(date -u +%H:%M:%S)"
    t0=$(date +%s)
    "$@" || die "stage $name failed after $(( $(date +%s) - t0 )) s" "see the log above; re-run to resume from this stage"
    t1=$(date +%s)
    mkdir -p "$stamps"
    echo "$((t1 - t0)) s, $(date -u +%FT%TZ)" >"$stamps/$name.done"
    note "stage $name: $(elapsed $((t1 - t0)))"
}

# elapsed SECONDS: "1 h 02 min 03 s"
elapsed() {
    local s=$1
    if [ "$s" -ge 3600 ]; then
        printf '%d h %02d min %02d s\n' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
    elif [ "$s" -ge 60 ]; then
        printf '%d min %02d s\n' $((s / 60)) $((s % 60))
    else
        printf '%d s\n' "$s"
    fi
}

# sync_rts_tree STAGE TREE: copy what the RTS-only build reads (rts/,
# includes/, utils/genapply/) from STAGE to TREE, rewriting only files whose
# content changed and deleting files STAGE no longer has, so that the
# dependency-tracking RTS build (scripts/rts.mk) stays incremental. Prints
# the number of files changed.
sync_rts_tree() {
    local stage=$1 tree=$2 d f changed=0
    for d in rts includes utils/genapply; do
        [ -d "$stage/$d" ] || continue # 9.6 keeps its headers in rts/include
        mkdir -p "$tree/$d"
        while read -r f; do
            if ! cmp -s "$stage/$d/$f" "$tree/$d/$f" 2>/dev/null; then
                mkdir -p "$(dirname "$tree/$d/$f")"
                rm -f "$tree/$d/$f"
                cp "$stage/$d/$f" "$tree/$d/$f"
                changed=$((changed + 1))
            fi
        done < <(cd "$stage/$d" && find . -type f | sed 's|^\./||')
        while read -r f; do
            [ -e "$stage/$d/$f" ] || { rm -f "$tree/$d/$f"; changed=$((changed + 1)); }
        done < <(cd "$tree/$d" && find . -type f | sed 's|^\./||')
    done
    echo "$changed"
}

# ---------------------------------------------------------------- upstream
# The pristine release (upstream's tree, not Debian's), as a git repository:
# what scripts/export-upstream exports against and check-upstream-series
# applies the exported series to.
PRISTINE_TARBALL="$build/src/ghc_$GHC_VERSION.orig.tar.xz"
PRISTINE_TAG="ghc-$GHC_VERSION-release"
export GIT_AUTHOR_NAME="rtscope developers" GIT_AUTHOR_EMAIL="rtscope@users.noreply.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"

# make_pristine_repo DIR: a fresh git repository of the release tarball in
# DIR, one commit tagged $PRISTINE_TAG.
make_pristine_repo() {
    local dir=$1
    command -v git >/dev/null || die "git is not installed" "apt-get install git"
    [ -f "$PRISTINE_TARBALL" ] || die "the release tarball $PRISTINE_TARBALL is missing" "run scripts/setup --source"
    rm -rf "$dir" "$dir.tmp"
    mkdir -p "$dir.tmp"
    tar -xJf "$PRISTINE_TARBALL" -C "$dir.tmp" --strip-components=1
    git -C "$dir.tmp" init -q
    git -C "$dir.tmp" config core.autocrlf false
    # no gc in the background: after the tarball's 10,000 files (loose
    # objects) git detaches a `gc --auto`, which then races the next git am
    # for HEAD.lock (seen in a clean clone: "cannot lock ref 'HEAD'")
    git -C "$dir.tmp" config gc.auto 0
    git -C "$dir.tmp" config maintenance.auto false
    git -C "$dir.tmp" -c core.safecrlf=false add -A -f # 9.6.6 has CRLF files and a .gitattributes: quiet
    GIT_AUTHOR_DATE="2021-12-25T00:00:00Z" GIT_COMMITTER_DATE="2021-12-25T00:00:00Z" \
        git -C "$dir.tmp" commit -q -m "GHC $GHC_VERSION release tarball"
    git -C "$dir.tmp" tag "$PRISTINE_TAG"
    mv "$dir.tmp" "$dir"
}
