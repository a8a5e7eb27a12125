# hadrian-config/build.mk: mk/build.mk for a whole GHC 9.0.2 with rtscope's
# RTS patches, built with 9.0's make build system (what Debian uses for
# 9.0.2). scripts/build-ghc copies it to mk/build.mk of the patched tree and
# configures with --with-system-libffi --enable-dwarf-unwind.
#
# Flavour: GHC's release flavour `perf` (optimised compiler and libraries,
# what Debian ships), unless RTSCOPE_FLAVOUR says otherwise: `quick` builds
# in a fraction of the time and suits trying the series out, not shipping.
BuildFlavour ?= $(if $(RTSCOPE_FLAVOUR),$(RTSCOPE_FLAVOUR),perf)

ifneq "$(BuildFlavour)" ""
include mk/flavours/$(BuildFlavour).mk
endif

# Library ways: vanilla and dynamic, as rtscope's overlay and testsuite use
# them. Profiling ways (p) are what Debian's ghc-prof ships; rtscope's RTS
# patches are not tested in profiling ways, so they are off unless asked for
# with RTSCOPE_PROFILING=YES.
ifeq "$(RTSCOPE_PROFILING)" "YES"
GhcLibWays = v p dyn
else
GhcLibWays = v dyn
endif
DYNAMIC_GHC_PROGRAMS = YES

# RTS ways: every non-profiling way Debian ships; the eventlog ways (l) are
# what -eventlog links, and rtscope's flags need them.
GhcRTSWays = v l thr thr_l debug thr_debug dyn l_dyn thr_dyn thr_l_dyn debug_dyn thr_debug_dyn
ifeq "$(RTSCOPE_PROFILING)" "YES"
GhcRTSWays += p thr_p debug_p thr_debug_p
endif

# Tracing in every RTS way, as rtscope's overlay (scripts/rts.mk) and GHC 9.4
# have it: `+RTS -l`, -hi's IPE events, the flush flags and the eventlog
# socket work in a program linked without -eventlog. Stock 9.0 compiles
# only the l, debug and profiling ways with -eventlog (mk/ways.mk); a
# program of the vanilla, threaded or dyn way then stops at `+RTS -l` with
# "the flag -l requires the program to be built with -eventlog". rts/ghc.mk
# passes GhcRtsHcOpts to every RTS way, for .c and .cmm alike (both are
# compiled by ghc, which turns -eventlog into -DTRACING).
GhcRtsHcOpts += -eventlog

# libdw: configure's --enable-dwarf-unwind sets GhcRtsWithLibdw = YES, which
# links the RTS with libdw and libelf (rts/package.conf.in). rtscope's -hi
# provenance (rts/IPEProvenance.c) reads ELF symbols and DWARF through them.
# Stated here too so that a configure without the flag fails loudly in
# scripts/build-ghc's check rather than yielding an RTS without provenance.

# Documentation off: no Haddock, no Sphinx (users guide), no man page.
HADDOCK_DOCS       = NO
BUILD_SPHINX_HTML  = NO
BUILD_SPHINX_PDF   = NO
BUILD_MAN          = NO

# Debian links every Haskell program with the system libffi like this
# (debian/rules).
SRC_HC_OPTS += -lffi -optl-pthread

# Quiet build; V=1 for the full command lines.
V = 0
