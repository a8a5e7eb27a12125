# scripts/rts-9.0.mk: GHC 9.0.2's layer of scripts/rts.mk (Debian bookworm's
# ghc 9.0.2-4), after its rts/ghc.mk and mk/ways.mk. One difference from
# Debian: every way is built with tracing (-eventlog), as GHC 9.4 does, so
# that `+RTS -l` works in programs linked without -eventlog.

RTS_INC := includes
RTS_LIB_NAME := HSrts
# The profiling ways Debian's ghc-prof ships, when it is installed (setup
# installs it): programs built with -prof link these.
PROF_WAYS ?= $(if $(wildcard $(GHC_LIBDIR)/rts/libHSrts_p.a),p thr_p debug_p thr_debug_p)
WAYS ?= v l thr thr_l debug thr_debug dyn l_dyn thr_dyn thr_l_dyn debug_dyn thr_debug_dyn $(PROF_WAYS)
ASAN_WAYS ?= thr_asan asan

RTS_DIRS := hooks sm eventlog linker linker/macho posix
C_SRCS := $(filter-out xxhash.c,$(patsubst $(TREE)/rts/%,%,\
            $(wildcard $(TREE)/rts/*.c $(foreach d,$(RTS_DIRS),$(TREE)/rts/$(d)/*.c)))) \
          adjustor/NativeAmd64.c
CMM_SRCS := $(patsubst $(TREE)/rts/%,%,$(wildcard $(TREE)/rts/*.cmm))
S_SRCS := StgCRunAsm.S

WARNING_OPTS := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes \
  -Wmissing-declarations -Wpointer-arith -Wmissing-noreturn -Wnested-externs \
  -Wredundant-decls -Wno-aggregate-return
CC_OPTS_VERSION := -fno-common
HC_OPTS_VERSION := -dcmm-lint
GENAPPLY_ARGS :=

way_hc_v         := -static -eventlog
way_hc_l         := -static -eventlog
way_hc_thr       := -static -optc-DTHREADED_RTS -eventlog
way_hc_thr_l     := -static -optc-DTHREADED_RTS -eventlog
way_hc_debug     := -static -optc-DDEBUG -ticky -DTICKY_TICKY -eventlog
way_hc_thr_debug := -static -optc-DTHREADED_RTS -optc-DDEBUG -eventlog
way_hc_dyn           := -fPIC -dynamic -eventlog
way_hc_l_dyn         := -fPIC -dynamic -eventlog
way_hc_thr_dyn       := -fPIC -dynamic -optc-DTHREADED_RTS -eventlog
way_hc_thr_l_dyn     := -fPIC -dynamic -optc-DTHREADED_RTS -eventlog
way_hc_debug_dyn     := -fPIC -dynamic -optc-DDEBUG -ticky -DTICKY_TICKY -eventlog
way_hc_thr_debug_dyn := -fPIC -dynamic -optc-DTHREADED_RTS -optc-DDEBUG -eventlog
# Profiling ways (PROF_WAYS): those Debian's ghc-prof ships, static only.
way_hc_p           := -static -prof -optc-DPROFILING -eventlog
way_hc_thr_p       := -static -prof -optc-DPROFILING -optc-DTHREADED_RTS -eventlog
way_hc_debug_p     := -static -prof -optc-DPROFILING -optc-DDEBUG -eventlog
way_hc_thr_debug_p := -static -prof -optc-DPROFILING -optc-DTHREADED_RTS -optc-DDEBUG -eventlog

# Twin ways: with tracing in every way, the eventlog ways compile exactly
# as their plain twins (same flags) but for -DRtsWay, the name `+RTS --info`
# and the eventlog's header report. A twin way compiles only the files that
# use RtsWay (TWIN_OWN) and takes every other object from its twin: four
# ways' worth of compilation saved, libraries identical to compiling all.
twin_l         := v
twin_thr_l     := thr
twin_l_dyn     := dyn
twin_thr_l_dyn := thr_dyn
TWIN_OWN := RtsUtils.c Trace.c

# the rts package's extra-libraries (Debian's rts.conf), and the series'
# own (libdw/libelf for provenance)
RTS_STOCK_LIBS := -lm -lrt -ldl -lffi
EXTRA_LIBS_FILE ?= rts-patches/extra-libraries

# ghc's optimisation level (Cmm, and C through ghc -c): debug ways -O0
hc_olevel = $(if $(findstring debug,$(1)),-O0,-O2)
way_c_srcs = $(C_SRCS)
