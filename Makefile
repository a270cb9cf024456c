# Makefile - the course's table of contents. `make help` explains every target in one line each.
#
# Settings you may override on the command line, e.g. `make ex05 SIM=1`:
NVCC      ?= nvcc
CUDA_HOME ?= /usr/local/cuda
CC        ?= cc
CXX       ?= g++
BUILD     ?= build
SIM       ?= 0
# The GPU to build for: the one in this machine when there is one, else Hopper (sm_90).
HAVE_GPU  := $(shell nvidia-smi -L >/dev/null 2>&1 && echo 1)
GPU_ARCH  ?= $(if $(HAVE_GPU),native,sm_90)

# The emulator runs kernels on the CPU when there is no GPU (or when SIM=1 asks for it).
-include checker/emu/emu.mk
BACKEND   := $(if $(EMU_LIB),$(if $(filter 1,$(SIM)),emu,$(if $(HAVE_GPU),gpu,emu)),gpu)

CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -Wall -Wextra -D_GNU_SOURCE -I$(CUDA_HOME)/include
GPU_NVCCFLAGS := -arch=$(GPU_ARCH) -O3 -lineinfo -std=c++17
GPU_LDFLAGS   := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread

export NVCC CUDA_HOME CC CXX BUILD BACKEND GPU_NVCCFLAGS GPU_LDFLAGS EMU_NVCCFLAGS EMU_LDFLAGS EMU_LIB HAVE_GPU

.DEFAULT_GOAL := help

# ---- The checker's static parts: the harness and one object per hidden suite ----------------------------
HARNESS_SRC := $(wildcard checker/harness/harness_*.c)
HARNESS_OBJ := $(patsubst checker/harness/%.c,$(BUILD)/obj/%.o,$(HARNESS_SRC))
SUITE_OBJ   := $(patsubst checker/suites/%.c,$(BUILD)/obj/suites/%.o,$(wildcard checker/suites/ex*.c))
CHECKER_LIBS := $(HARNESS_OBJ) $(SUITE_OBJ) $(BUILD)/obj/backend_gpu.o $(BUILD)/harness-tests \
                $(if $(EMU_LIB),$(BUILD)/obj/backend_emu.o $(EMU_LIB))

$(BUILD)/obj/%.o: checker/harness/%.c checker/harness/harness.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $$(pkg-config --cflags check) -c $< -o $@

$(BUILD)/obj/suites/%.o: checker/suites/%.c checker/harness/harness.h checker/contracts/%.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $$(pkg-config --cflags check) -c $< -o $@

# The harness's own tests: they need no device, so they link against the GPU runtime everywhere.
$(BUILD)/harness-tests: checker/tests/check_harness.c $(HARNESS_OBJ) $(BUILD)/obj/backend_gpu.o
	$(CC) $(CFLAGS) $$(pkg-config --cflags check) $^ -o $@ $(GPU_LDFLAGS) $$(pkg-config --libs check) -lm

# The exercises are the folders exercises/NN-slug/: each gives the goal exNN, so a new one needs no edit here.
EXERCISE_GOALS := $(sort $(foreach d,$(wildcard exercises/[0-9][0-9]-*/),ex$(firstword $(subst -, ,$(notdir $(d:/=))))))
ACTIONS := reset hint solution watch predict
# `make reset ex05` names an action and an exercise: the exercise goal then does the action, not grading.
ACTION := $(firstword $(filter $(ACTIONS),$(MAKECMDGOALS)))

# At a terminal, a grade that failed ends with its own report, not with make's "*** [...] Error 1" after
# it: the status of the learner's commands is ignored there (and -s keeps make from saying so). In
# scripts (stderr not a terminal) make exits 2 when they fail, as usual.
LEARNER := $(if $(shell [ -t 2 ] && echo 1),-)
ifneq ($(LEARNER),)
MAKEFLAGS += -s
endif

.PHONY: help deps checker $(ACTIONS) editor $(EXERCISE_GOALS) check test bench metrics grade-file

help:
	@echo "The GPU reduction course. Start with: make ex01"
	@echo ""
	@echo "  make exNN            build your exercise NN ($(firstword $(EXERCISE_GOALS)) to $(lastword $(EXERCISE_GOALS))), run its hidden tests, show the report"
	@echo "  make check           grade every exercise and show your progress"
	@echo "  make watch           grade the first exercise not done at each save (make watch exNN: that one)"
	@echo "  make hint exNN       a hint for exercise NN's first failure, a question; again for the next one"
	@echo "  make solution exNN   once NN passes: the reference solution, a diff against yours, what comes next"
	@echo "  make predict exNN    before running NN: say which metric you expect to move; the report compares"
	@echo "  make reset exNN      put exercise NN's starting file back (yours is kept in .state/backups/)"
	@echo "  make editor          write compile_commands.json, for clangd in VS Code, Vim or Emacs"
	@echo "  make test            verify the course itself: every solution passes, every skeleton fails"
	@echo "  make bench           on a GPU: time every version and yours beside CUB and a copy, ints and floats"
	@echo "  make metrics         every version's counters on the emulator, yours beside them (no GPU needed)"
	@echo "  make gpu-compare     course developers, on a GPU: the emulator gives the same answers as the GPU"
	@echo "  make ncu-compare     course developers, on a GPU: the emulator's metrics beside Nsight Compute's"
	@echo "  make help            show this list"
	@echo ""
	@echo "Settings: SIM=1 runs kernels on the emulator even on a GPU machine; SEED=n replays a run;"
	@echo "make check FORMAT=tap (or xml) also writes one result file per exercise to $(BUILD)/results/;"
	@echo "NO_COLOR=1 turns colours off. Inside an exercise's folder, make grades that exercise."
	@echo "In scripts, make exits 0 when all it was asked passed, else 2 (README: \"Exit status\")."
	@echo "This machine grades on: $(BACKEND)$(if $(filter emu,$(BACKEND)), (the emulator on CPU))."

deps:
	@checker/scripts/deps.sh

checker: deps
	@$(MAKE) --no-print-directory -s $(CHECKER_LIBS)

ifeq ($(ACTION),)
$(EXERCISE_GOALS): checker | compile_commands.json
	$(LEARNER)@checker/scripts/grade.sh $(patsubst ex%,%,$@)
else
$(EXERCISE_GOALS):
	$(LEARNER)@checker/scripts/$(ACTION).sh $(patsubst ex%,%,$@)
$(ACTION):
	$(LEARNER)@$(if $(filter-out $(ACTION) $(EXERCISE_GOALS),$(MAKECMDGOALS)),checker/scripts/goal.sh action $(ACTION) $(filter-out $(ACTION) $(EXERCISE_GOALS),$(MAKECMDGOALS)),$(if $(filter $(EXERCISE_GOALS),$(MAKECMDGOALS)),:,$(if $(filter watch,$(ACTION)),checker/scripts/watch.sh,checker/scripts/goal.sh action $(ACTION))))
endif
# Any other exNN (ex5, ex12): one sentence instead of make's "No rule to make target" (with an action,
# the action's own line has said it). Any other unknown goal too. (A file that is not a goal and has no
# rule is left to whatever needs it: a missing header makes its compiler say so; a missing dependency
# file, build/emu/*.d, is simply not there yet.)
ex%:
	$(LEARNER)@$(if $(ACTION),:,checker/scripts/goal.sh unknown $@)
.DEFAULT:
	$(if $(filter $@,$(MAKECMDGOALS)),$(LEARNER)@checker/scripts/goal.sh unknown $@,@:)

# clangd's view of the exercise files; written once by the first `make exNN`, again by `make editor`.
editor:
	@checker/scripts/editor.sh
compile_commands.json:
	@checker/scripts/editor.sh --quiet

check: checker
	$(LEARNER)@checker/scripts/check-all.sh

test: checker
	@checker/scripts/selftest.sh

# For course developers: grade any kernel file against an exercise's suite, e.g.
#   make grade-file EX=08 FILE=checker/corpus/ex08/atomics_not_zeroed.cu
grade-file: checker
	@out=$(BUILD)/$(BACKEND)/grade-file/ex$(EX); checker/scripts/build-suite.sh $(EX) $(FILE) $$out && $$out/suite

bench: deps
	@checker/scripts/bench.sh

metrics: checker
	@checker/metrics/metrics.sh table

# GPU verification (checker/gpu/README.md): the emulator against a real GPU, for course developers.
.PHONY: gpu-compare ncu-compare
gpu-compare:
	@checker/gpu/compare.sh $(GPU_COMPARE_ARGS)
ncu-compare:
	@checker/gpu/ncu_compare.sh $(NCU_COMPARE_ARGS)
