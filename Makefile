# rtscope: heap observability for Haskell programs on GHC 9.0.2.
#
#   make            setup (Debian packages, GHC source) + patched RTS + overlay + consumer
#   make test       everything above, the consumer's unit tests (also under
#                   ASan+UBSan), the gates (make lint), then the whole testsuite
#   make lint       clang-format check, cppcheck and clang-tidy on the consumer
#                   and the RTS additions, shellcheck, every See Note resolves
#   make ghc-testsuite  GHC 9.0.2's own testsuite (rts, profiling, concurrent,
#                   ffi; rts also threaded1, threaded2, dyn) with the overlay;
#                   its failures again with stock ghc; fails on regressions
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
RTS_MAKE = $(MAKE) --no-print-directory -f scripts/rts.mk -j$(JOBS) \
           TREE=$(BUILD)/tree OUT=$(BUILD)/rts-obj LIB=$(BUILD)/lib/ghc/rts

.PHONY: all setup tree rts overlay consumer test lint ghc-testsuite demo bench install clean \
        distclean full-ghc full-ghc-test upstream

all: overlay consumer

setup:
	@scripts/setup

tree: setup
	@scripts/prepare-tree

rts: tree
	@$(RTS_MAKE) >$(BUILD)/rts-build.log 2>&1 || { tail -30 $(BUILD)/rts-build.log; \
	  echo "rtscope: RTS build failed (full log: $(BUILD)/rts-build.log)"; exit 1; }

overlay: rts
	@scripts/overlay

consumer: setup
	@if [ -f consumer/Makefile ]; then $(MAKE) --no-print-directory -j$(JOBS) -C consumer all; fi

# The real tier's libraries are installed after the overlay is built: its
# tests also show that the overlay sees packages installed after make.
test: all
	@scripts/setup --real
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
ghc-testsuite: all
	@scripts/setup --ghc-testsuite
	@scripts/ghc-testsuite

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

# The series checked as the case toolchain/upstream-series does (export,
# git am on pristine 9.0.2, an RTS build per commit, its GHC-format tests);
# not in make test (minutes of RTS builds): CI runs it after make test.
upstream: all
	@testsuite/driver/run toolchain/upstream-series

clean:
	rm -rf $(BUILD)/tree $(BUILD)/tree.new $(BUILD)/rts-obj $(BUILD)/lib $(BUILD)/bin testsuite/_out \
	  $(BUILD)/ghc-testsuite
	@if [ -f consumer/Makefile ]; then $(MAKE) --no-print-directory -C consumer clean; fi

distclean: clean
	rm -rf $(BUILD)
