# profkit: the two entry points of the README, plus the pieces they are made of.
#   make demo   install what is missing, build, run the main job on the bundled example
#   make test   install what is missing, build (Release with clang-22, ASan+UBSan with g++),
#               run every test in both builds
#   make difftest  the differential tests against llvm-profdata and llvm-profgen on thousands
#                  of random cases
# Variables: JOBS (parallel build jobs), WERROR=ON|OFF.

JOBS ?= $(shell nproc)
WERROR ?= ON
CMAKE_COMMON = -G Ninja -DPROFKIT_WERROR=$(WERROR)

.PHONY: all deps build build-asan demo test test-release test-asan difftest soak fuzz bench bench-pgo bench-runtime-real bench-runtime-shapes clean install package

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B build $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
	@cmake --build build -j $(JOBS)

build-asan: deps
	@cmake -S . -B build-asan $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
	  -DPROFKIT_SANITIZE=address,undefined -DPROFKIT_BENCH=OFF >/dev/null
	@cmake --build build-asan -j $(JOBS)

demo: build
	@bash examples/demo.sh

test-release: build
	@cd build && ctest --output-on-failure -j $(JOBS)

test-asan: build-asan
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# The differential tests against llvm-profdata and llvm-profgen on thousands of random
# cases instead of the few hundred `make test` runs (DIFF_CASES to change; DIFF_FIRST=F to
# number them from F, for seeds not run before; PROFKIT_DIFF_SEED=S replays one case).
DIFF_CASES ?= 3000
DIFF_FIRST ?= 1
export PROFKIT_DIFF_FIRST = $(DIFF_FIRST)
difftest: build
	@PROFKIT_DIFF_CASES=$(DIFF_CASES) build/bin/irpgo_differential_test
	@PROFKIT_DIFF_CASES=$(DIFF_CASES) python3 tests/sampleprof_differential_test.py build/bin/profkit
	@PROFKIT_DIFF_CASES=$(DIFF_CASES) python3 tests/irpgo_order_differential_test.py build/bin/profkit
	@PROFKIT_DIFF_CASES=$(DIFF_CASES) python3 tests/suppl_differential_test.py build/bin/profkit
	@PROFKIT_DIFF_CASES=$$(( $(DIFF_CASES) / 3 )) python3 tests/profgen_differential_test.py \
	  build/bin/profkit build/bin/profkit-branch-trace
	@PROFKIT_DIFF_CASES=$$(( $(DIFF_CASES) / 3 )) python3 tests/memprof_differential_test.py \
	  build/bin/profkit build/lib

# The heap profiler runtime in a long-running process: SOAK_SECONDS of churn (threads coming
# and going, frees across threads) with an interval profile every 0.05 s; fails if the
# runtime's memory grows after the warm-up (tests/soak_test.py; ctest runs 10 s of it).
SOAK_SECONDS ?= 300
soak: build
	@python3 tests/soak_test.py build/lib $(SOAK_SECONDS)

test: test-release test-asan
	@echo "make test: all tests passed in the Release and ASan+UBSan builds"

# libFuzzer builds of every *_fuzz.cc, run for FUZZ_SECONDS each from the seed corpus.
FUZZ_SECONDS ?= 60
fuzz: deps
	@cmake -S . -B build-fuzz $(CMAKE_COMMON) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DPROFKIT_FUZZ=ON \
	  -DPROFKIT_SANITIZE=address,undefined -DPROFKIT_BENCH=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target fuzzers
	@bash scripts/run-fuzzers.sh build-fuzz $(FUZZ_SECONDS)

bench: build
	@bash bench/run.sh

# Only the PGO benchmark (bench/pgo: IR PGO vs sample PGO on Lua and bzip2, ~15 minutes).
bench-pgo: build
	@bash bench/pgo/run.sh

# Only the heap profiler runtime on real programs (bench/runtime/real.sh: Lua and SQLite
# built plain, floor, compiler-rt and profkit; RUNS, default 5; ~15 minutes).
bench-runtime-real: build
	@bash bench/runtime/real.sh

# Only the heap profiler runtime on program shapes none of the workloads has
# (bench/runtime/shapes.sh: over-aligned blocks, thread churn, fork, many threads, live at
# exit; RUNS, default 5; ~3 minutes).
bench-runtime-shapes: build
	@bash bench/runtime/shapes.sh

# Installs into PREFIX (default /usr/local): bin/profkit, lib/libprofkit_memprof.*, man pages.
PREFIX ?= /usr/local
install: build
	@cmake --install build --prefix $(PREFIX)

# build/profkit_VERSION_amd64.deb, a Debian package of the same files.
package: build
	@cd build && cpack -G DEB >/dev/null && ls $$PWD/profkit_*.deb

clean:
	rm -rf build build-asan build-fuzz
