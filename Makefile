# rtscope: heap observability for Haskell programs on Debian's GHCs: 9.0.2
# (bookworm) and 9.6.6 (trixie).
#
#   make            setup (Debian packages, GHC source) + patched RTS + overlay + consumer,
#                   for the host suite's GHC; GHC=9.6 (or 9.0) for the other,
#                   built in a build root of its suite (scripts/buildroot)
#   make test       everything above for both GHCs, the consumer's unit tests
#                   (also under ASan+UBSan), the gates (make lint), then the
#                   whole testsuite
#   make lint       clang-format check, cppcheck and clang-tidy on the consumer
#                   and the RTS additions, shellcheck, every See Note resolves
#   make ghc-testsuite  GHC's own testsuite (rts, profiling, concurrent, ffi;
#                   rts also threaded1, threaded2, dyn) with the overlay; its
#                   failures again with stock ghc; fails on regressions
#                   (GHC=9.6: 9.6's, in its build root)
#   make demo       build, run an instrumented program, write its reports
#   make bench      the benchmarks (ratios measured side by side)
#   make install    PREFIX=/opt/rtscope: overlay, wrappers, consumer
#   make full-ghc   a whole patched GHC in _build/ghc-full (not in make test; ~40 min on 2 cores)
#   make full-ghc-test  rtscope's testsuite with that GHC instead of the overlay
#   make upstream   the series as git format-patch against pristine 9.0.2,
#                   checked with git am and an RTS build per commit (CI)
#   make clean      remove _build/ and build outputs (keeps the fetched source)

PREFIX ?= /opt/rtscope
BUILD  := _build
JOBS   ?= $(shell nproc)
export JOBS
# GHC=9.6 or GHC=9.0 picks the toolchain (see Note [Two GHCs, one tree] in
# scripts/lib.sh); the consumer is the host's either way.
ifneq ($(strip $(GHC)),)
export RTSCOPE_GHC := $(GHC)
endif
# Both GHCs rtscope builds for: make test builds and tests each.
GHCS := 9.0 9.6

.PHONY: all setup tree rts overlay toolchain toolchains consumer test lint ghc-testsuite demo \
        bench install clean distclean full-ghc full-ghc-test upstream

all: overlay consumer

# scripts/toolchain STEP: that step and those before it, for the chosen GHC
# (in its build root when its suite is not the host's).
setup tree rts:
	@scripts/toolchain $@

overlay toolchain:
	@scripts/toolchain overlay

toolchains:
	@for g in $(GHCS); do $(MAKE) --no-print-directory toolchain GHC=$$g || exit 1; done

# The consumer is built on the host, with the host suite's packages.
consumer:
	@env -u RTSCOPE_GHC scripts/setup --packages
	@if [ -f consumer/Makefile ]; then $(MAKE) --no-print-directory -j$(JOBS) -C consumer all; fi

# The real tier's libraries are installed after the overlay is built: its
# tests also show that the overlay sees packages installed after make.
# The other suites' build roots, packages and GHC sources are fetched
# while the host's GHC builds (network beside CPU; log in
# $(BUILD)/prefetch.log).
test:
	@mkdir -p $(BUILD); \
	  (for g in $(GHCS); do RTSCOPE_GHC=$$g scripts/toolchain prefetch || exit 1; done) >$(BUILD)/prefetch.log 2>&1 & pf=$$!; \
	  $(MAKE) --no-print-directory all || { wait $$pf; exit 1; }; \
	  wait $$pf || { cat $(BUILD)/prefetch.log; echo "rtscope: fetching the other GHCs' build roots failed (above)"; exit 1; }
	@$(MAKE) --no-print-directory toolchains
	@for g in $(GHCS); do RTSCOPE_GHC=$$g scripts/setup --real || exit 1; done
	@if [ -f consumer/Makefile ]; then $(MAKE) --no-print-directory -j$(JOBS) -C consumer check && \
	  $(MAKE) --no-print-directory -j$(JOBS) -C consumer asan; fi
	@scripts/gates
	@testsuite/driver/run -j$(JOBS)

# The habits make test enforces: formatting, cppcheck and clang-tidy (the
# consumer and the RTS additions), shellcheck, Notes. scripts/gates -h.
lint: tree consumer
	@scripts/gates

# GHC's testsuite is read from ../shared (or $RTSCOPE_SHARED), never copied
# into the repository: see scripts/ghc-testsuite.
# GHC_TESTSUITE_RUNS: some of its runs only (scripts/ghc-testsuite -h)
ghc-testsuite: all
	@scripts/ghc-testsuite $(GHC_TESTSUITE_RUNS)

demo: all
	@scripts/demo

bench: all
	@scripts/setup --real
	@benchmarks/run

install: all
	@scripts/install "$(PREFIX)"

full-ghc:
	@scripts/setup --full-ghc
	@scripts/build-ghc --prefix $(BUILD)/ghc-full

# The sanitizer ways (asan, thr_asan) still link the overlay's ASan RTS,
# which a whole GHC does not build: hence `all`, once the GHC is there.
full-ghc-test:
	@test -x $(BUILD)/ghc-full/bin/ghc || { echo "rtscope: no whole GHC in $(BUILD)/ghc-full (fix: make full-ghc)"; exit 1; }
	@$(MAKE) --no-print-directory all
	@OVERLAY_GHC=$(CURDIR)/$(BUILD)/ghc-full/bin/ghc testsuite/driver/run
	@scripts/check-upstream-tests $(CURDIR)/$(BUILD)/ghc-full/bin/ghc

# The series checked as the case toolchain/upstream-series does, for each
# GHC (export, git am on the pristine release, an RTS build per commit, its
# GHC-format tests); not in make test (minutes of RTS builds): CI runs it
# after make test.
upstream: all
	@$(MAKE) --no-print-directory toolchains
	@testsuite/driver/run toolchain/upstream-series

clean:
	rm -rf $(BUILD)/tree $(BUILD)/tree.new $(BUILD)/rts-obj $(BUILD)/lib $(BUILD)/bin testsuite/_out \
	  $(BUILD)/ghc-testsuite
	@if [ -f consumer/Makefile ]; then $(MAKE) --no-print-directory -C consumer clean; fi

distclean: clean
	rm -rf $(BUILD)
