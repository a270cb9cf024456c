# Makefile - the course's table of contents. `make help` explains every target in one line each.
#
# Settings you may override on the command line, e.g. `make ex05 SIM=1`:
NVCC      ?= nvcc
CUDA_HOME ?= /usr/local/cuda
CC        ?= cc
CXX       ?= g++
BUILD     ?= build
SIM       ?= 0
# The GPU to build for: the one in this machine when there is one, else Hopper (sm_90). nvidia-smi is asked
# once per command (each call starts the driver): the sub-makes and the scripts read its answer from
# COURSE_GPU_SEEN ("sm_90 Default 1 NVIDIA H200", or "none": checker/scripts/gpu-seen.sh).
ifndef COURSE_GPU_SEEN
COURSE_GPU_SEEN := $(shell sh checker/scripts/gpu-seen.sh)
export COURSE_GPU_SEEN
endif
HAVE_GPU  := $(if $(filter-out none,$(firstword $(COURSE_GPU_SEEN))),1)
GPU_ARCH  ?= $(if $(HAVE_GPU),native,sm_90)

# The emulator runs kernels on the CPU when there is no GPU (or when SIM=1 asks for it).
-include checker/emu/emu.mk
BACKEND   := $(if $(EMU_LIB),$(if $(filter 1,$(SIM)),emu,$(if $(HAVE_GPU),gpu,emu)),gpu)

CFLAGS    ?= -O2 -g
# The suites see NCCL's declarations in the emulator's nccl.h (the same types and values as NCCL's own), before
# any copy of the real header that the toolkit's folder holds.
# Position-independent, as a GPU's grade links the suite as a shared object too (checker/harness/warm.h).
CFLAGS    += -std=c11 -Wall -Wextra -D_GNU_SOURCE -fPIC -fno-semantic-interposition -Ichecker/emu/nccl -I$(CUDA_HOME)/include
GPU_NVCCFLAGS := -arch=$(GPU_ARCH) -O3 -lineinfo -std=c++17 -Xcompiler -fPIC
# On a GPU the learner's file is compiled once for both backends: the GPU's machine code and the compute_90
# PTX the emulator reads, in one object linked twice (checker/scripts/build-suite.sh, backend "both").
GPU_SM    := $(patsubst sm_%,%,$(if $(filter native,$(GPU_ARCH)),$(firstword $(COURSE_GPU_SEEN)),$(GPU_ARCH)))
comma     := ,
BOTH_NVCCFLAGS := $(if $(GPU_SM),-gencode arch=compute_$(GPU_SM)$(comma)code=sm_$(GPU_SM),-arch=$(GPU_ARCH)) \
                  -gencode arch=compute_90,code=compute_90 -Xfatbin -compress=false -O3 -lineinfo -std=c++17 \
                  -Xcompiler -fPIC
GPU_LDFLAGS   := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread

export NVCC CUDA_HOME CC CXX BUILD BACKEND GPU_NVCCFLAGS BOTH_NVCCFLAGS GPU_LDFLAGS EMU_NVCCFLAGS EMU_LDFLAGS EMU_LIB HAVE_GPU

# The learner's language: English, or Chinese (COURSE_LANG=zh, or a zh_CN locale): checker/i18n/i18n.mk.
include checker/i18n/i18n.mk
# An LC_ALL that names a locale this machine lacks (a zh_CN never generated) makes bash warn in every
# script: the language it asks for goes on as COURSE_LANG, and the recipes run without it.
ifneq ($(LC_ALL),)
ifneq ($(shell LC_ALL='$(LC_ALL)' locale 2>&1 >/dev/null),)
COURSE_LANG ?= $(if $(filter zh zh_CN% zh_SG% zh-CN% zh.%,$(LC_ALL)),zh,en)
export COURSE_LANG
unexport LC_ALL
endif
endif
# The course's text is UTF-8. A locale this machine lacks (LANG=zh_CN.UTF-8 where it was never generated)
# leaves sed, awk and bash in "C", where a Chinese character is three bytes that a pattern may cut in the
# middle: the recipes then read characters as UTF-8 (C.UTF-8, which every glibc has), and the language is
# still the one asked for (checker/i18n/i18n.c reads LC_MESSAGES and LANG itself).
ASKED_LOCALE := $(or $(LC_ALL),$(LC_CTYPE),$(LANG))
ifneq ($(ASKED_LOCALE),)
ifneq ($(shell LC_ALL='$(ASKED_LOCALE)' locale 2>&1 >/dev/null),)
ifneq ($(shell LC_ALL='$(or $(LC_CTYPE),$(LANG),C)' locale charmap 2>/dev/null),UTF-8)
export LC_CTYPE := C.UTF-8
endif
endif
endif

.DEFAULT_GOAL := help

# ---- The checker's static parts: the harness and one object per hidden suite ----------------------------
HARNESS_SRC := $(wildcard checker/harness/harness_*.c)
HARNESS_OBJ := $(patsubst checker/harness/%.c,$(BUILD)/obj/%.o,$(HARNESS_SRC)) $(BUILD)/obj/harness_record.o
SUITE_OBJ   := $(patsubst checker/suites/%.c,$(BUILD)/obj/suites/%.o,$(wildcard checker/suites/ex*.c))
# Every object is built again when the flags that made it change (a course update that changes them): a file
# whose name holds their checksum is a prerequisite of each.
CFLAGS_STAMP := $(BUILD)/obj/.flags-$(shell printf '%s' '$(CFLAGS) $(EMU_CFLAGS)' | cksum | cut -d' ' -f1)
$(CFLAGS_STAMP):
	@mkdir -p $(@D) && rm -f $(BUILD)/obj/.flags-* && touch $@
$(HARNESS_OBJ) $(I18N_OBJ) $(SUITE_OBJ) $(BUILD)/obj/backend_gpu.o $(BUILD)/obj/backend_emu.o \
    $(BUILD)/obj/ubsan_quiet.o $(EMU_OBJS): $(CFLAGS_STAMP)
CHECKER_LIBS := $(HARNESS_OBJ) $(I18N_OBJ) $(SUITE_OBJ) $(BUILD)/obj/backend_gpu.o $(BUILD)/obj/ubsan_quiet.o \
                $(BUILD)/bin/warm-run \
                $(BUILD)/harness-tests i18n \
                $(if $(EMU_LIB),$(BUILD)/obj/backend_emu.o $(EMU_LIB))

$(BUILD)/obj/%.o: checker/harness/%.c checker/harness/harness.h checker/harness/warm.h checker/i18n/i18n.h \
                  checker/emu/emu_record.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $$(pkg-config --cflags check) -c $< -o $@

# The findings' records (checker/emu/emu_record.c, in HARNESS_OBJ above) belong to the harness too: a GPU's
# build reads them.
$(BUILD)/obj/harness_record.o: checker/emu/emu_record.c checker/emu/emu_record.h checker/emu/emu_text.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/suites/%.o: checker/suites/%.c checker/harness/harness.h checker/i18n/i18n.h checker/contracts/%.h \
                         checker/harness/harness_space_table.h $(wildcard checker/spaces/*.def) \
                         $(wildcard checker/suites/*.h) checker/emu/emu_record.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $$(pkg-config --cflags check) -c $< -o $@

# A process that makes its CUDA context before it knows what it runs (checker/harness/warm.h): no CUDA library
# linked, the driver loaded where there is one.
$(BUILD)/bin/warm-run: checker/harness/warm_run.c checker/harness/harness_warm.c checker/harness/warm.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) checker/harness/warm_run.c checker/harness/harness_warm.c -o $@ -ldl

# The harness's own tests: they need no device, so they link against the GPU runtime everywhere.
$(BUILD)/harness-tests: checker/tests/check_harness.c $(HARNESS_OBJ) $(I18N_OBJ) $(BUILD)/obj/backend_gpu.o
	$(CC) $(CFLAGS) $$(pkg-config --cflags check) $^ -o $@ $(GPU_LDFLAGS) $$(pkg-config --libs check) -lm

# The exercises are the folders exercises/NN-slug/: each gives the goal exNN, so a new one needs no edit here.
EXERCISE_GOALS := $(sort $(foreach d,$(wildcard exercises/[0-9][0-9]-*/),ex$(firstword $(subst -, ,$(notdir $(d:/=))))))
ACTIONS := reset restore hint solution watch predict show
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

help: i18n
	@checker/scripts/help.sh $(firstword $(EXERCISE_GOALS)) $(lastword $(EXERCISE_GOALS))

deps:
	@checker/scripts/deps.sh

# The checker's objects build nproc at a time (the emulator's library is some twenty C files).
checker: deps
	@$(MAKE) --no-print-directory -s -j$(shell nproc 2>/dev/null || echo 1) $(CHECKER_LIBS)

ifeq ($(ACTION),)
$(EXERCISE_GOALS): checker | compile_commands.json
	$(LEARNER)@checker/scripts/grade.sh $(patsubst ex%,%,$@)
else
$(EXERCISE_GOALS): | i18n
	$(LEARNER)@checker/scripts/$(ACTION).sh $(patsubst ex%,%,$@)
$(ACTION): | i18n
	$(LEARNER)@$(if $(filter-out $(ACTION) $(EXERCISE_GOALS),$(MAKECMDGOALS)),checker/scripts/goal.sh action $(ACTION) $(filter-out $(ACTION) $(EXERCISE_GOALS),$(MAKECMDGOALS)),$(if $(filter $(EXERCISE_GOALS),$(MAKECMDGOALS)),:,$(if $(filter watch,$(ACTION)),checker/scripts/watch.sh,checker/scripts/goal.sh action $(ACTION))))
endif
# make show runs the learner's file on the emulator: the checker (and the emulator) are built first.
ifeq ($(ACTION),show)
$(EXERCISE_GOALS): checker
endif
# Any other exNN (ex5, ex12): one sentence instead of make's "No rule to make target" (with an action,
# the action's own line has said it). Any other unknown goal too. (A file that is not a goal and has no
# rule is left to whatever needs it: a missing header makes its compiler say so; a missing dependency
# file, build/emu/*.d, is simply not there yet.)
ex%:
	$(LEARNER)@$(if $(ACTION),:,$(MAKE) --no-print-directory -s i18n; checker/scripts/goal.sh unknown $@)
.DEFAULT:
	$(if $(and $(filter $@,$(MAKECMDGOALS)),$(if $(ACTION),,1)),$(LEARNER)@$(MAKE) --no-print-directory -s i18n; checker/scripts/goal.sh unknown $@,@:)

# clangd's view of the exercise files; written once by the first `make exNN`, again by `make editor`.
editor: i18n
	@checker/scripts/editor.sh
compile_commands.json:
	@checker/scripts/editor.sh --quiet

check: checker
	$(LEARNER)@checker/scripts/check-all.sh

test: checker
	@checker/scripts/selftest.sh

# For course editors: the Chinese edition in step with the English one, the pages (editions.py) and the
# report (report-editions.py); make test runs both.
.PHONY: editions
editions: checker
	@status=0; python3 checker/scripts/editions.py || status=1; \
	python3 checker/scripts/report-editions.py || status=1; exit $$status

# For course developers: grade any kernel file, or a corpus entry (a patch against a reference), against an
# exercise's suite, e.g.  make grade-file EX=08 FILE=checker/corpus/ex08/atomics_not_zeroed.patch
grade-file: checker
	@checker/scripts/grade-file.sh $(EX) $(FILE)

bench: deps
	@checker/scripts/bench.sh
# For course editors: softmax's error against the row's distance from 0, the exponent as x - m first and as
# FlashAttention's one FFMA (lesson 16 quotes it); on the emulator where there is no GPU.
.PHONY: softmax-shift
softmax-shift: checker
	@mkdir -p $(BUILD)/bin
	@$(NVCC) $(if $(filter emu,$(BACKEND)),$(EMU_NVCCFLAGS) -O3 -std=c++17,$(GPU_NVCCFLAGS)) \
		checker/bench/softmax_shift.cu -o $(BUILD)/bin/softmax-shift \
		$(if $(filter emu,$(BACKEND)),$(EMU_LDFLAGS),$(GPU_LDFLAGS)) && $(BUILD)/bin/softmax-shift

# For teachers: grade every learner's checkout in a folder, e.g.  make classroom SUBMISSIONS=~/class/
.PHONY: classroom
classroom: checker
	@checker/scripts/classroom.sh $(SUBMISSIONS)

metrics: checker
	@checker/metrics/metrics.sh table

# GPU verification (checker/gpu/README.md): the emulator against a real GPU, for course developers.
.PHONY: gpu-compare ncu-compare
gpu-compare:
	@checker/gpu/compare.sh $(GPU_COMPARE_ARGS)
ncu-compare:
	@checker/gpu/ncu_compare.sh $(NCU_COMPARE_ARGS)
