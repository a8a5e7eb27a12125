# scripts/rts-9.6.mk: GHC 9.6.6's layer of scripts/rts.mk (Debian trixie's
# ghc 9.6.6-4), after the flags Hadrian gives the rts package
# (hadrian/src/Settings/Packages.hs: rtsPackageArgs, rtsWarnings;
# Settings/Builders/Common.hs: wayCcArgs) and the sources of rts.cabal.in
# for x86_64 Linux with native adjustors. Tracing is in every way since
# 9.4 (rts/include/rts/Config.h), so there are no eventlog ways.
# scripts/check-rts-stock compares the result with Debian's libraries.

RTS_INC := rts/include
RTS_LIB_NAME := HSrts-1.0.2
PROF_WAYS ?= $(if $(wildcard $(GHC_LIBDIR)/x86_64-linux-ghc-$(GHC_VERSION)/rts-1.0.2/libHSrts-1.0.2_p.a),\
               p thr_p debug_p thr_debug_p)
WAYS ?= v thr debug thr_debug dyn thr_dyn debug_dyn thr_debug_dyn $(PROF_WAYS)
ASAN_WAYS ?= thr_asan asan

# rts.cabal.in's c-sources for Linux (the linker's object formats all
# compile, as upstream builds them), its cmm-sources and asm-sources
RTS_DIRS := hooks sm eventlog linker linker/macho posix
C_SRCS := $(filter-out xxhash.c version.c,$(patsubst $(TREE)/rts/%,%,\
            $(wildcard $(TREE)/rts/*.c $(foreach d,$(RTS_DIRS),$(TREE)/rts/$(d)/*.c)))) \
          adjustor/NativeAmd64.c adjustor/AdjustorPool.c
# the GC's threaded twins only in threaded ways, as Hadrian's cObjects
way_c_srcs = $(if $(findstring thr,$(1)),$(C_SRCS),$(filter-out sm/Evac_thr.c sm/Scav_thr.c,$(C_SRCS)))
CMM_SRCS := $(patsubst $(TREE)/rts/%,%,$(wildcard $(TREE)/rts/*.cmm))
S_SRCS := adjustor/NativeAmd64Asm.S

WARNING_OPTS := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
  -Wmissing-declarations -Winline -Wpointer-arith -Wmissing-noreturn \
  -Wnested-externs -Wredundant-decls -Wundef
CC_OPTS_VERSION := -fomit-frame-pointer
HC_OPTS_VERSION :=
GENAPPLY_ARGS = $(TREE)/$(RTS_INC)/DerivedConstants.h

way_hc_v             := -static
way_hc_thr           := -static -optc-DTHREADED_RTS -DTHREADED_RTS
way_hc_debug         := -static -optc-DDEBUG -ticky -optc-DTICKY_TICKY -DTICKY_TICKY
way_hc_thr_debug     := -static -optc-DTHREADED_RTS -DTHREADED_RTS -optc-DDEBUG
way_hc_dyn           := -fPIC -dynamic
way_hc_thr_dyn       := -fPIC -dynamic -optc-DTHREADED_RTS -DTHREADED_RTS
way_hc_debug_dyn     := -fPIC -dynamic -optc-DDEBUG -ticky -optc-DTICKY_TICKY -DTICKY_TICKY
way_hc_thr_debug_dyn := -fPIC -dynamic -optc-DTHREADED_RTS -DTHREADED_RTS -optc-DDEBUG
way_hc_p             := -static -prof -DPROFILING
way_hc_thr_p         := -static -prof -DPROFILING -optc-DTHREADED_RTS -DTHREADED_RTS
way_hc_debug_p       := -static -prof -DPROFILING -optc-DDEBUG
way_hc_thr_debug_p   := -static -prof -DPROFILING -optc-DTHREADED_RTS -DTHREADED_RTS -optc-DDEBUG

TWIN_OWN :=

# the rts package's extra-libraries (Debian's rts.conf: c m rt dl ffi numa,
# libc first as rts.cabal.in has it, #19029), and the series' own
RTS_STOCK_LIBS := -lc -lm -lrt -ldl -lffi -lnuma
EXTRA_LIBS_FILE ?= rts-patches/9.6/extra-libraries

# ghc's optimisation level: Hadrian's default flavour gives stage 1 -O2 in
# every way, so the debug ways' Cmm is optimised too (their C files get
# -O0 after it, as -optc flags come last since GHC 9.4, #14452)
hc_olevel = -O2
