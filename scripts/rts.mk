# scripts/rts.mk: build the patched RTS, every way Debian ships (the
# non-profiling ways static and dynamic, the profiling ways of ghc-prof),
# with the installed ghc as C and Cmm driver.
#
#   make -f scripts/rts.mk TREE=_build/tree OUT=_build/rts-obj LIB=_build/lib/rts
#
# The installed ghc (HC) says which GHC the tree is for; what differs
# between GHCs (sources, ways, flags, library names) is in its layer,
# scripts/rts-SERIES.mk: 9.0.2's mirrors its rts/ghc.mk and mk/ways.mk,
# 9.6.6's the flags Hadrian gives (hadrian/src/Settings/Packages.hs), as
# Debian builds each. Dependencies come from the C preprocessor (-MMD), so
# touching one file rebuilds only what includes it.

TREE ?= _build/tree
# A tree under the working directory (make -C the checkout) is named
# relative to it, as ccache names it to the compiler when it caches (Note
# [A compiler cache across checkouts] in scripts/lib.sh), so that
# SRC_PREFIX_MAP matches the name the compiler sees (__FILE__ in assertion
# messages is rts/Foo.c, as in Debian's RTS), with ccache or without.
override TREE := $(patsubst $(CURDIR)/%,%,$(abspath $(TREE)))
OUT  ?= _build/rts-obj
LIB  ?= _build/lib/ghc/rts
GEN  ?= $(OUT)/gen
HC   ?= /usr/bin/ghc
GHC_VERSION := $(shell $(HC) --numeric-version)
GHC_SERIES  := $(basename $(GHC_VERSION))
GHC_LIBDIR  := $(shell $(HC) --print-libdir)
PLATFORM := x86_64-unknown-linux
# Sanitizer ways (see "Sanitizer ways" below): built after WAYS, into
# ASAN_LIB under the library names of their base way.
ASAN_LIB  ?= $(LIB)-asan

# The GHC's own layer: RTS_INC, RTS_LIB_NAME, WAYS, PROF_WAYS, ASAN_WAYS,
# C_SRCS, way_c_srcs, CMM_SRCS, S_SRCS, WARNING_OPTS, CC_OPTS_VERSION,
# HC_OPTS_VERSION, hc_olevel, GENAPPLY_ARGS, way_hc_WAY, twin_WAY and
# TWIN_OWN, RTS_STOCK_LIBS, EXTRA_LIBS_FILE.
include $(dir $(lastword $(MAKEFILE_LIST)))rts-$(GHC_SERIES).mk

.SUFFIXES:
.DELETE_ON_ERROR:

# ---------------------------------------------------------------- flags
STANDARD_OPTS := -I$(TREE)/$(RTS_INC) -I$(TREE)/rts -I$(GEN) -DCOMPILING_RTS -DFS_NAMESPACE=rts

# HC_OPTS reach both .c and .cmm compilations (GHC passes -optc to the Cmm
# preprocessor too); CC_OPTS only .c.
# __FILE__ (in assertion and barf messages) names a file as GHC's own build
# does, from the top of its tree (rts/Arena.c), not by our tree's path.
SRC_PREFIX_MAP := -fmacro-prefix-map=$(TREE)/=
HC_OPTS := $(STANDARD_OPTS) -this-unit-id rts -optc$(SRC_PREFIX_MAP) $(HC_OPTS_VERSION)
CC_OPTS := $(WARNING_OPTS) $(STANDARD_OPTS) -fno-strict-aliasing $(SRC_PREFIX_MAP) $(CC_OPTS_VERSION)

# Sanitizer ways: WAY_asan (and plain `asan` for v) is its base way's RTS
# with every C file compiled by gcc at -O1 with AddressSanitizer and
# UndefinedBehaviorSanitizer, non-recovering, so that the first report
# aborts the program. Only the C files are rebuilt: the Cmm, AutoApply and
# assembler objects are the base way's (the sanitizers instrument C only).
# GHC 9.0.2 has no command-line way for a custom RTS flavour, so the
# libraries keep their base way's names (libHSrts_thr.a, libHSrts.a) in a
# directory of their own, which a program selects with -L at link time:
#   ghc -threaded -L$OVERLAY/lib/ghc/rts-asan -optl-fsanitize=address,undefined
way_hc_thr_asan := $(way_hc_thr)
way_hc_asan     := $(way_hc_v)
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all
asan_base = $(if $(filter asan,$(1)),v,$(patsubst %_asan,%,$(1)))
is_asan   = $(filter asan %_asan,$(1))

# $(call way_opt_hc,WAY) / $(call way_opt_cc,WAY)
way_opt_hc = $(way_hc_$(1)) $(call hc_olevel,$(1))
way_opt_cc = $(if $(call is_asan,$(1)),-fno-omit-frame-pointer -O1 -g $(SANITIZE),\
               $(if $(findstring debug,$(1)),-fno-omit-frame-pointer -O0 -g3,-O2 -fomit-frame-pointer -g)) \
             $(if $(findstring dyn,$(1)),-DDYNAMIC) -DRtsWay=\"rts_$(1)\"

# per-file options, as rts/ghc.mk (Hadrian's rtsPackageArgs likewise)
file_cc_RtsMessages := -DProjectVersion=\"$(GHC_VERSION)\"
file_cc_Trace       := -DProjectVersion=\"$(GHC_VERSION)\"
file_cc_RtsUtils    := -DProjectVersion=\"$(GHC_VERSION)\" \
  -DHostPlatform=\"$(PLATFORM)\" -DHostArch=\"x86_64\" -DHostOS=\"linux\" -DHostVendor=\"unknown\" \
  -DBuildPlatform=\"$(PLATFORM)\" -DBuildArch=\"x86_64\" -DBuildOS=\"linux\" -DBuildVendor=\"unknown\" \
  -DTargetPlatform=\"$(PLATFORM)\" -DTargetArch=\"x86_64\" -DTargetOS=\"linux\" -DTargetVendor=\"unknown\" \
  -DGhcUnregisterised=\"NO\" -DTablesNextToCode=\"YES\"
file_cc_Hash        := -O3
file_cc_sm/Compact  := -Wno-inline -finline-limit=2500
file_cc_sm/Evac     := -funroll-loops
file_cc_sm/Evac_thr := -funroll-loops
file_cc_StgCRun     := -w

twin_of = $(or $(twin_$(1)),$(1))

# the objects of one way: $(call objs,WAY); a sanitizer way takes all but
# its C objects from its base way, a twin way all but TWIN_OWN from its twin
nonc_way = $(if $(call is_asan,$(1)),$(call asan_base,$(1)),$(call twin_of,$(1)))
c_way    = $(if $(filter $(2),$(TWIN_OWN)),$(1),$(call twin_of,$(1)))
objs = $(foreach c,$(call way_c_srcs,$(1)),$(OUT)/$(call c_way,$(1),$(c))/$(c:.c=.o)) \
       $(patsubst %.cmm,$(OUT)/$(call nonc_way,$(1))/%.o,$(CMM_SRCS)) \
       $(OUT)/$(call nonc_way,$(1))/AutoApply.o \
       $(patsubst %.S,$(OUT)/$(call nonc_way,$(1))/%.o,$(S_SRCS))

# library name of a way: libHSrts_thr.a, libHSrts_thr-ghc9.0.2.so, ...;
# a sanitizer way's is its base way's, in ASAN_LIB
way_base = $(patsubst %_dyn,%,$(patsubst dyn,v,$(1)))
way_tag  = $(if $(filter v,$(call way_base,$(1))),,_$(call way_base,$(1)))
lib_of   = $(if $(call is_asan,$(1)),$(ASAN_LIB)/lib$(RTS_LIB_NAME)$(call way_tag,$(call asan_base,$(1))).a,\
             $(LIB)/lib$(RTS_LIB_NAME)$(call way_tag,$(1))$(if $(findstring dyn,$(1)),-ghc$(GHC_VERSION).so,.a))

# A sanitizer way shares its base way's Cmm and assembler objects, so it is
# built only along with its base way (WAYS=thr: thr and thr_asan).
ALL_WAYS := $(WAYS) $(foreach a,$(ASAN_WAYS),$(if $(filter $(call asan_base,$(a)),$(WAYS)),$(a)))
LIBS := $(foreach w,$(ALL_WAYS),$(call lib_of,$(w)))

all: $(LIBS)

# ---------------------------------------------------------------- AutoApply.cmm
# Generated by the tree's own genapply, built with the installed ghc.
$(GEN)/genapply: $(TREE)/utils/genapply/Main.hs
	@mkdir -p $(GEN)/genapply.o
	$(HC) -O0 -v0 -outputdir $(GEN)/genapply.o -I$(TREE)/$(RTS_INC) $< -o $@

$(GEN)/AutoApply.cmm: $(GEN)/genapply
	$(GEN)/genapply $(GENAPPLY_ARGS) >$@.tmp && mv $@.tmp $@

# ---------------------------------------------------------------- per way
# GHC preprocesses Cmm with a temporary header (/tmp/ghcNNN_0/ghc_2.h) that
# it deletes afterwards; left in the .d file, that missing prerequisite
# would rebuild every Cmm object of every way on each make.
fix_cmm_deps = sed -i -e '\|^/tmp/ghc[^ ]*:$$$$|d' -e 's| /tmp/ghc[^ ]*||g' $(1)

# ---------------------------------------------------------------- C files
# C files go to the C compiler directly, with the flags ghc -c would give
# it (ghc -v shows them): GHC as a C driver costs ~0.12 s of CPU a file
# (its start, its package database, an assembler file between), 43% of the
# C compilations' CPU time (60 files of v: 16.5 s, 9.3 s direct). The flags
# GHC adds: its settings' C compiler flags, -no-pie, PIC or not, -Wimplicit,
# ghcversion.h, the include directories of rts's package and of base's (ghc
# -c compiles in the default package environment); a way's -eventlog is
# -DTRACING, -prof -DPROFILING, -D and -optc flags as they are, -O2 itself
# (ghc's -O0 passes none). scripts/check-rts-cc compares the objects with
# ghc -c's: equal in all 18 ways.
GHC_SETTING = $(shell sed -n 's/.*("$(1)", "\(.*\)").*/\1/p' $(GHC_LIBDIR)/settings)
# CCACHE: a launcher for the C compiler (scripts/toolchain passes ccache:
# Note [A compiler cache across checkouts] in scripts/lib.sh)
CC := $(strip $(CCACHE) $(or $(call GHC_SETTING,C compiler command),cc))
GHC_CC_FLAGS := $(call GHC_SETTING,C compiler flags) \
  $(if $(filter YES,$(call GHC_SETTING,C compiler supports -no-pie)),-no-pie) \
  -Wimplicit -include $(TREE)/$(RTS_INC)/ghcversion.h
GHC_PKG ?= $(dir $(HC))ghc-pkg
GHC_PKG_INCS := $(addprefix -I,$(foreach p,base ghc-bignum rts,\
  $(shell $(GHC_PKG) field $(p) include-dirs --simple-output 2>/dev/null)))
# $(call way_opt_c,WAY): a way's ghc flags as the C compiler's
way_opt_c = $(filter -O2,$(call way_opt_hc,$(1))) \
  $(if $(filter -fPIC,$(way_hc_$(1))),-fPIC -U__PIC__ -D__PIC__,-fno-PIC) \
  $(STANDARD_OPTS) $(GHC_PKG_INCS) \
  $(if $(filter -eventlog,$(way_hc_$(1))),-DTRACING) $(if $(filter -prof,$(way_hc_$(1))),-DPROFILING) \
  $(filter -D%,$(way_hc_$(1))) $(patsubst -optc%,%,$(filter -optc%,$(way_hc_$(1))))

# the C compiler's own flags of a way's C file (in a rule: $$* and $$@)
c_flags = $(CC_OPTS) $(call way_opt_cc,$(1)) $$(file_cc_$$*) -MMD -MP -MF $$(@:.o=.d) -MT $$@
# GHC_CC=1: through ghc -c, as before (scripts/check-rts-cc compares)
ifeq ($(GHC_CC),1)
c_rule = $(HC) -c $$< -o $$@ $(HC_OPTS) $(call way_opt_hc,$(1)) $$(addprefix -optc,$(call c_flags,$(1)))
else
c_rule = $(CC) -x c $(GHC_CC_FLAGS) -c $$< -o $$@ $(call way_opt_c,$(1)) $(call c_flags,$(1))
endif

define way_rules
$(OUT)/$(1)/%.o: $(TREE)/rts/%.c
	@mkdir -p $$(@D)
	$(call c_rule,$(1))

$(OUT)/$(1)/%.o: $(TREE)/rts/%.cmm
	@mkdir -p $$(@D)
	$(HC) -c $$< -o $$@ $(HC_OPTS) $(call way_opt_hc,$(1)) \
	  $$(addprefix -optc,-MMD -MP -MF $$(@:.o=.d) -MT $$@)
	$(call fix_cmm_deps,$$(@:.o=.d))

$(OUT)/$(1)/AutoApply.o: $(GEN)/AutoApply.cmm
	@mkdir -p $$(@D)
	$(HC) -c $$< -o $$@ $(HC_OPTS) $(call way_opt_hc,$(1)) \
	  $$(addprefix -optc,-MMD -MP -MF $$(@:.o=.d) -MT $$@)
	$(call fix_cmm_deps,$$(@:.o=.d))

$(OUT)/$(1)/%.o: $(TREE)/rts/%.S
	@mkdir -p $$(@D)
	$(HC) -c $$< -o $$@ $(HC_OPTS) $(call way_opt_hc,$(1))

-include $$(wildcard $(OUT)/$(1)/*.d $(OUT)/$(1)/*/*.d $(OUT)/$(1)/*/*/*.d)
endef
# a twin way's twin gets compile rules even when not built itself
RULE_WAYS := $(sort $(ALL_WAYS) $(foreach w,$(ALL_WAYS),$(call twin_of,$(w))))
$(foreach w,$(RULE_WAYS),$(eval $(call way_rules,$(w))))

# static: an archive; dynamic: a shared library linked as rts/ghc.mk does,
# against the rts package's extra-libraries (plus libdw/libelf for
# provenance).
RTS_EXTRA_LIBS := $(RTS_STOCK_LIBS) \
  $(addprefix -l,$(shell sed -e 's/#.*//' $(EXTRA_LIBS_FILE) 2>/dev/null))

define lib_rules
$(call lib_of,$(1)): $(call objs,$(1))
	@mkdir -p $$(@D)
	rm -f $$@
ifeq ($(findstring dyn,$(1)),dyn)
	$(HC) -this-unit-id rts -shared -dynamic -dynload deploy -no-auto-link-packages \
	  $(RTS_EXTRA_LIBS) $$^ -o $$@
else
	ar qc $$@ $$^ && ranlib $$@
endif
endef
$(foreach w,$(ALL_WAYS),$(eval $(call lib_rules,$(w))))

.PHONY: all
