# Top-level entry points: build, demo, setup, fuzz, bench. The test and lint lanes live in Makefile.check.
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
FUZZ_SECONDS ?= 600
FUZZ_CORPUS ?= tests/fuzz/corpus
FUZZ_ARGS ?=

QUICK ?=

# $(call configure,<build dir>,<extra cmake args>): configure (or re-configure) a Ninja build tree.
define configure
	@test -e $(A64RUN_DEPS)/usr/lib/x86_64-linux-gnu/libunicorn.so.2 || \
	  { echo "error: Unicorn is missing from $(A64RUN_DEPS)/usr: run 'make setup' first" >&2; exit 1; }
	$(CMAKE) -S . -B $(1) $(CMAKE_COMMON_ARGS) $(2)
endef

.PHONY: all configure demo setup fuzz bench clean
.DEFAULT_GOAL := all

all: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

configure:
	$(call configure,$(BUILD),)

demo: all
	$(BUILD)/a64run $(DEMO_PROG) $(DEMO_ARGS)

setup:
	bash scripts/setup.sh

# libFuzzer needs clang (-fsanitize=fuzzer comes from libclang-rt-14-dev). The corpus directory is used
# when present; new inputs are written to a scratch corpus inside the build tree, not the source tree.
fuzz:
	$(call configure,$(FUZZ_BUILD),-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DA64RUN_FUZZ=ON)
	$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS) --target elf_fuzzer
	mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/tests/fuzz/elf_fuzzer -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) $(FUZZ_BUILD)/corpus \
	  $(wildcard $(FUZZ_CORPUS))

bench: all
	QUICK=$(QUICK) BUILD=$(BUILD) bench/run

clean:
	rm -rf $(BUILD) build-asan build-ubsan build-tsan $(FUZZ_BUILD)

include Makefile.check
