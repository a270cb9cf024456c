# checker/emu/emu.mk - builds the CUDA emulator (libcudaemu.a) and runs its tests.
# Included by the top-level Makefile; also works alone: make -f checker/emu/emu.mk emu-test
#
# A program built with $(NVCC) $(EMU_NVCCFLAGS) -c x.cu links as:  $(CC) x.o $(EMU_LDFLAGS) -o x

# Leave the includer's default goal alone: this file's rules come first in its Makefile.
emu_saved_default_goal := $(.DEFAULT_GOAL)

BUILD ?= build
NVCC ?= nvcc
CUDA_HOME ?= /usr/local/cuda

EMU_DIR := checker/emu
EMU_OUT := $(BUILD)/emu
EMU_LIB := $(EMU_OUT)/libcudaemu.a

# How learner code is built for the emulator: uncompressed PTX for compute_90, with line info; <nccl.h> is the
# emulator's NCCL (checker/emu/nccl, before the toolkit's copy where a machine has one).
EMU_NVCCFLAGS := -cudart none -gencode arch=compute_90,code=compute_90 -Xfatbin -compress=false -lineinfo -Xcompiler -fPIC \
                 -I$(EMU_DIR)/nccl
# What a program needs after its objects (nvcc's host code needs the C++ runtime).
EMU_LDFLAGS := $(EMU_LIB) -lstdc++ -lm
# The learner's host code is checked too: undefined behaviour (signed overflow, division by zero, shifts,
# array bounds) becomes a finding at its line (emu_host_ub.c: the handlers are the library's own, no
# sanitizer runtime), and line tables (-g1) let a fault on device memory name its line (emu_host_fault.c).
# nvcc splits -Xcompiler's value at commas: one option each.
EMU_HOST_CHECKS := $(foreach c,signed-integer-overflow integer-divide-by-zero shift bounds,-Xcompiler -fsanitize=$(c)) \
                   -Xcompiler -g1
export EMU_HOST_CHECKS
# The host code of a file built for the emulator alone is not optimised: the emulator runs the kernels from
# their PTX, which the host's optimisation does not change (cicc's own settings do not move; the PTX of every
# reference and starting file is the same byte for byte at -O0 and -O3), and the host code only launches
# them. gcc then compiles exercise 16's host side in 0.6 s of CPU instead of 1.0, exercise 12's in 2.3
# instead of 2.7 (nvcc --time). A GPU machine's object for both backends keeps -O3 (BOTH_NVCCFLAGS).
EMU_HOST_OPT := -O0
export EMU_HOST_OPT

# The CPU features the engine may use (see emu_arch.sh: x86-64-v3 or -v2 where this machine has them,
# else the compiler's default); EMU_ARCH= builds a portable library. Contraction stays off: float
# results must be one rounding per PTX instruction, as on the GPU.
ifeq ($(origin EMU_ARCH),undefined)
EMU_ARCH := $(shell sh $(EMU_DIR)/emu_arch.sh '$(CC)')
endif
# Position-independent: make test runs the emulator's suites as shared objects too, the way a GPU's grade runs
# its own (checker/scripts/batch-check.sh). Without semantic interposition, which -fPIC alone assumes and which
# keeps the compiler from inlining a file's own global functions: with it, exercise 08's regrade here took
# 6.85 s against 6.62 without -fPIC; with both flags 6.57 (regrade-times.sh, 3 runs each).
EMU_CFLAGS := -std=c11 -O2 $(EMU_ARCH) -ffp-contract=off -Wall -Wextra -g -fPIC -fno-semantic-interposition -I$(CUDA_HOME)/include

# Every emu_*.c: the runtime half and the engine half alike.
EMU_SRCS := $(wildcard $(EMU_DIR)/emu_*.c)
EMU_OBJS := $(patsubst $(EMU_DIR)/%.c,$(EMU_OUT)/%.o,$(EMU_SRCS))
# The runtime half alone, for its tests against a fake engine.
EMU_RT_NAMES := activity api device devices errors events fatbin findings held mem order record runtime
EMU_RT_OBJS := $(patsubst %,$(EMU_OUT)/emu_%.o,$(EMU_RT_NAMES))

$(EMU_OUT)/%.o: $(EMU_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(EMU_CFLAGS) -MMD -MP -c $< -o $@

$(EMU_LIB): $(EMU_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

-include $(EMU_OBJS:.o=.d)

.PHONY: emu-lib emu-test emu-bench
emu-lib: $(EMU_LIB)

# The engine's speed: warp instructions per second on the v6 reference (solutions/v6_shuffle.cu) at
# 2^24 elements, on one core (bench/emu_bench.c). Run it a few times: the machine may be busy.
EMU_BENCH := $(EMU_OUT)/bench/emu_bench
$(EMU_OUT)/bench/v6_shuffle.o: solutions/v6_shuffle.cu
	@mkdir -p $(@D)
	$(NVCC) $(EMU_NVCCFLAGS) -O3 -c $< -o $@
$(EMU_BENCH): $(EMU_DIR)/bench/emu_bench.c $(EMU_OUT)/bench/v6_shuffle.o $(EMU_LIB)
	$(CC) $(EMU_CFLAGS) $(EMU_DIR)/bench/emu_bench.c $(EMU_OUT)/bench/v6_shuffle.o $(EMU_LDFLAGS) -o $@
emu-bench: $(EMU_BENCH)
	@EMU_QUIET=0 $(EMU_BENCH)

# Builds the runtime half (which the runner needs), then the library (a failure there is one failed
# test, not the end), then runs every test in $(EMU_DIR)/tests: see tests/run_tests.sh.
emu-test: $(EMU_RT_OBJS)
	@lib_ok=1; $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(EMU_LIB) || lib_ok=0; \
	EMU_LIB_OK=$$lib_ok BUILD='$(BUILD)' CC='$(CC)' NVCC='$(NVCC)' CUDA_HOME='$(CUDA_HOME)' \
	EMU_CFLAGS='$(EMU_CFLAGS)' EMU_NVCCFLAGS='$(EMU_NVCCFLAGS)' EMU_LIB='$(EMU_LIB)' \
	EMU_RT_OBJS='$(EMU_RT_OBJS)' sh $(EMU_DIR)/tests/run_tests.sh

.DEFAULT_GOAL := $(emu_saved_default_goal)
