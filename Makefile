# Top-level entry points: build, demo, setup, install, deb, fuzz, fuzz-syscalls, bench, bench-stall, sigcost,
# stress. The test and lint lanes live in Makefile.check.
# Every build directory is a separate CMake/Ninja tree; CMake re-runs itself when CMakeLists.txt changes.

BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= 2
CMAKE ?= cmake
# Prefix holding Unicorn 2.1.1 and Capstone 5.0.7 unpacked by scripts/setup.sh (CMake reads $(A64RUN_DEPS)/usr).
A64RUN_DEPS ?= $(CURDIR)/.deps
export A64RUN_DEPS
CMAKE_COMMON_ARGS = -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DA64RUN_DEPS_PREFIX=$(A64RUN_DEPS)/usr \
  $(CMAKE_ARGS)

DEMO_PROG ?= $(BUILD)/tests/guest/demo/demo
DEMO_ARGS ?=

FUZZ_BUILD ?= build-fuzz
FUZZ_TARGETS = elf_fuzzer sigframe_fuzzer syscall_args_fuzzer
FUZZ_TARGET ?= $(FUZZ_TARGETS)
FUZZ_SECONDS ?= 200
# A signal frame is 4688 bytes, and an extra_context's data may follow it: more than libFuzzer's 4096.
FUZZ_FLAGS_sigframe_fuzzer = -max_len=16384
FUZZ_CORPUS ?= tests/fuzz/corpus
FUZZ_ARGS ?=

QUICK ?=

# make install PREFIX=/usr/local DESTDIR=... (packaging/install.sh has the file list).
PREFIX ?= /usr/local
DESTDIR ?=

# $(call configure,<build dir>,<extra cmake args>): configure (or re-configure) a Ninja build tree.
define configure
	@test -e $(A64RUN_DEPS)/usr/lib/x86_64-linux-gnu/libunicorn.so.2 || \
	  { echo "error: Unicorn is missing from $(A64RUN_DEPS)/usr: run 'make setup' first" >&2; exit 1; }
	$(CMAKE) -S . -B $(1) $(CMAKE_COMMON_ARGS) $(2)
endef

.PHONY: all configure demo setup install uninstall deb fuzz fuzz-syscalls bench bench-stall sigcost stress clean
.DEFAULT_GOAL := all

all: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

configure:
	$(call configure,$(BUILD),)

demo: all
	$(BUILD)/a64run $(DEMO_PROG) $(DEMO_ARGS)

setup:
	bash scripts/setup.sh

install: all
	bash packaging/install.sh $(BUILD) "$(DESTDIR)" $(PREFIX)

uninstall:
	bash packaging/install.sh --uninstall $(BUILD) "$(DESTDIR)" $(PREFIX)

# The Debian package, built with dpkg-deb alone: $(BUILD)/a64run_VERSION_ARCH.deb.
deb: all
	bash packaging/build_deb.sh $(BUILD) $(BUILD)

# The libFuzzer targets (tests/fuzz, docs/fuzzing.md), built with clang (-fsanitize=fuzzer comes from
# libclang-rt-14-dev) and run one after the other for FUZZ_SECONDS each: 10 minutes in all by default.
# FUZZ_TARGET=sigframe_fuzzer (or any list) runs only those. Each target's corpus is
# $(FUZZ_BUILD)/corpus/<target> (its build writes the seeds there; new inputs go there too), plus
# $(FUZZ_CORPUS)/<target> when present.
fuzz:
	$(call configure,$(FUZZ_BUILD),-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DA64RUN_FUZZ=ON)
	$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGET)
	$(foreach t,$(FUZZ_TARGET),mkdir -p $(FUZZ_BUILD)/corpus/$(t) && \
	  $(FUZZ_BUILD)/tests/fuzz/$(t) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS_$(t)) $(FUZZ_ARGS) \
	    $(FUZZ_BUILD)/corpus/$(t) $(wildcard $(FUZZ_CORPUS)/$(t)) && ) true

# The syscall fuzzer (tests/sysfuzz, docs/fuzzing.md): a campaign of SECONDS seconds from seed SEED (SEEDS
# children at most, CALLS calls each) under the ASan build; SYSFUZZ_BUILD=build SYSFUZZ_CMAKE= runs the release
# build (add SYSFUZZ_ARGS=--limit-as there). SYSFUZZ_MODE=qemu or native compares every result with
# qemu-aarch64 or with the host kernel (the same fuzzer built for x86-64).
SECONDS ?= 600
SEED ?= 1
SEEDS ?= 1000000
CALLS ?= 2000
SYSFUZZ_MODE ?= fuzz
SYSFUZZ_BUILD ?= build-asan
SYSFUZZ_CMAKE ?= -DA64RUN_SANITIZER=address
SYSFUZZ_ARGS ?=
SYSFUZZ_DIR = $(SYSFUZZ_BUILD)/tests/sysfuzz
fuzz-syscalls:
	$(call configure,$(SYSFUZZ_BUILD),$(SYSFUZZ_CMAKE))
	$(CMAKE) --build $(SYSFUZZ_BUILD) -j $(JOBS) --target a64run sysfuzz_run sysfuzz_guest sysfuzz_native
	nice -n 5 $(SYSFUZZ_DIR)/sysfuzz_run --guest $(SYSFUZZ_DIR)/sysfuzz --emulator $(SYSFUZZ_BUILD)/a64run \
	  --native $(SYSFUZZ_DIR)/sysfuzz_x86_64 --known tests/sysfuzz/known_differences.txt --mode $(SYSFUZZ_MODE) \
	  --seconds $(SECONDS) --seed $(SEED) --seeds $(SEEDS) --calls $(CALLS) --workdir $(SYSFUZZ_BUILD)/sysfuzz-runs \
	  $(SYSFUZZ_ARGS)

bench: all
	QUICK=$(QUICK) BUILD=$(BUILD) bench/run

# The preemption stall workload (workloads/stall/README.md) natively, under qemu-aarch64 and under a64run,
# async preemption on and off: one table. RUNS runs per arm; STALL_ARGS go to the workload.
RUNS ?= 1
STALL_ARGS ?= -secs 5
bench-stall: all
	RUNS=$(RUNS) python3 workloads/stall/bench_stall.py --build $(BUILD) -- $(STALL_ARGS)

# workloads/sigcost for arm64 (static, for a64run or qemu-aarch64) and natively, into $(BUILD)/workloads/sigcost/.
SIGCOST_CFLAGS = -O2 -g -std=gnu17 -Wall -Wextra -Werror -pthread -static
sigcost:
	mkdir -p $(BUILD)/workloads/sigcost
	aarch64-linux-gnu-gcc $(SIGCOST_CFLAGS) -o $(BUILD)/workloads/sigcost/sigcost.arm64 workloads/sigcost/sigcost.c
	gcc $(SIGCOST_CFLAGS) -o $(BUILD)/workloads/sigcost/sigcost.amd64 workloads/sigcost/sigcost.c

# The kick stress job: RUNS (default 100) runs each of sigcost's cross test and the kick storm, every one of
# which must end without a lost signal (tests/stress/kicks.sh; KICK_ARGS="ROUNDS SECONDS" for the storm).
stress: all sigcost
	RUNS=$(RUNS_STRESS) bash tests/stress/kicks.sh $(BUILD)/a64run $(BUILD)/workloads/sigcost/sigcost.arm64 \
	  $(BUILD)/tests/guest/signals/kick_storm
RUNS_STRESS ?= 100

clean:
	rm -rf $(BUILD) build-asan build-ubsan build-tsan $(FUZZ_BUILD)

include Makefile.check
