# Shared by every stepN/Makefile (which sets STEP and includes this). Builds and runs this step's programs
# from the top-level CMake build; TRACK=transpose or TRACK=matmul narrows every target to one track.
#   make            build your programs (stepN/transpose.cu, stepN/matmul.cu)
#   make run        run them at the default size: correct or not, speed, the device's limits beside
#   make check      the whole shape battery, then your speed next to this step's solution and the last step's
#   make solution   build and run this step's solution
#   make sanitize   compute-sanitizer's memcheck, racecheck and synccheck on your code at a small size
#   make profile    Nsight Compute counters of your kernel, under the names the lesson uses
#   make watch      the session: every save rebuilds and checks; keys for hints, profile, reset (docs/commands.md)
#   make clean      remove this step's programs
# ARGS="--size 4096" passes options to the programs; CUDA_ARCH=80 picks the GPU architecture.

MAKEFLAGS += --no-print-directory
# Paths stay relative to the step folder (TOP is ".."): make splits words at spaces, so an absolute path would
# break every target in a checkout whose path has a space in it.
TOP := $(patsubst %/common/make/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BUILD_DIR ?= $(TOP)/build
BIN := $(BUILD_DIR)/bin
TRACK ?= transpose matmul
CUDA_ARCH ?=
ARGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREVIOUS := $(shell echo $$(($(STEP) - 1)))
export PATH := $(PATH):/usr/local/cuda/bin

MINE := $(foreach t,$(TRACK),step$(STEP)_$(t))
SOLUTION := $(foreach t,$(TRACK),solution$(STEP)_$(t))
EARLIER := $(if $(filter-out 0,$(PREVIOUS)),$(foreach t,$(TRACK),solution$(PREVIOUS)_$(t)))
MAKE_DIR := $(TOP)/common/make
# Builds print nothing unless they fail, and then only the compiler's messages, at the student's file:line.
BUILD = @JOBS=$(JOBS) $(MAKE_DIR)/quiet_build.sh $(BUILD_DIR)
# Runs a shell loop that runs GPU programs as one job of the room's launcher (WORKSHOP_LAUNCHER, e.g. srun), so
# every figure of one command comes from the same GPU; without a launcher, right here, on the least busy of its GPUs
# (pick_gpu.sh). Builds stay outside it.
ON_GPU = @$(TOP)/common/room/launch.sh bash -c

.PHONY: all build run check solution sanitize profile clean configure watch

all: build

# Configuring is the top-level Makefile's job: one build folder and one set of options for every step.
$(BUILD_DIR)/CMakeCache.txt:
	@$(MAKE) -C $(TOP) configure BUILD_DIR=$(patsubst $(TOP)/%,%,$(BUILD_DIR)) CUDA_ARCH=$(CUDA_ARCH) QUIET=1

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	$(BUILD) $(MINE)

run: build
	$(ON_GPU) 'for p in $(MINE); do $(BIN)/$$p $(ARGS) || exit $$?; echo; done'

check: configure
	$(BUILD) $(MINE) $(SOLUTION) $(EARLIER)
	$(ON_GPU) 'status=0; for t in $(TRACK); do $(MAKE_DIR)/check.sh $(BIN) $(STEP) $$t $(ARGS) || status=$$?; \
	  echo; done; exit $$status'

solution: configure
	$(BUILD) $(SOLUTION)
	$(ON_GPU) 'for p in $(SOLUTION); do $(BIN)/$$p $(ARGS) || exit $$?; echo; done'

sanitize: build
	$(ON_GPU) 'status=0; for p in $(MINE); do $(BIN)/$$p --sanitize || status=$$?; echo; done; exit $$status'

profile: build
	$(ON_GPU) 'for t in $(TRACK); do $(MAKE_DIR)/profile.sh $(BIN)/step$(STEP)_$$t $$t $(ARGS) || exit $$?; done'

watch: configure
	@$(MAKE_DIR)/watch.sh $(BUILD_DIR) $(STEP) "$(TRACK)"

clean:
	rm -f $(foreach p,$(MINE),$(BIN)/$(p))
