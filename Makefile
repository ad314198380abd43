# Top-level entry points. Everything builds through CMake into build/.
#   make run      the instructor's results table: every solution next to the device's limits (needs a GPU)
#   make test     host tests everywhere; GPU tests on a GPU (without one: not built, reported as skipped)
#   make bench    the benchmark: every solution and reference over a range of sizes (needs a GPU)
#   make status   where a student stands: every step and track, builds / correct / speed, and what is next
#   make class    the class table: every student's status from WORKSHOP_CLASS_DIR (see "Workshop on a cluster")
#   make watch    the session: rebuilds and checks the step you save, with hints, the list and reset (keys)
#   make build    configure and build everything (without a GPU: what runs here; see GPU_TESTS)
# CUDA_ARCH=80 picks the GPU architecture (default: the GPU's own, or sm_90 without one).
# GPU_TESTS=ON or OFF, at the first configure, builds the GPU tests or not (default: ON where there is a GPU).

MAKEFLAGS += --no-print-directory
BUILD_DIR ?= build
CUDA_ARCH ?=
GPU_TESTS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS := -DCMAKE_BUILD_TYPE=Release $(if $(CUDA_ARCH),-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH)) \
              $(if $(GPU_TESTS),-DWORKSHOP_GPU_TESTS=$(GPU_TESTS))
export PATH := $(PATH):/usr/local/cuda/bin
# GPU programs run through the room's launcher (WORKSHOP_LAUNCHER in the environment or workshop.conf, e.g. srun);
# builds stay here. Without one they run right here, on the least busy GPU where there are several.
LAUNCH := common/room/launch.sh

.PHONY: all build configure setup test test-host test-gpu run status bench class clean watch bench-watch

all: build

setup:
	@common/make/setup.sh

$(BUILD_DIR)/CMakeCache.txt:
	@$(MAKE) configure

# QUIET=1 (the step Makefiles set it) keeps CMake's report in $(BUILD_DIR)/configure.log unless it fails.
configure: setup
	@mkdir -p $(BUILD_DIR)
	@if [ -n "$(QUIET)" ]; then cmake -S . -B $(BUILD_DIR) $(CMAKE_ARGS) >$(BUILD_DIR)/configure.log 2>&1 || \
	  { cat $(BUILD_DIR)/configure.log; exit 1; }; else cmake -S . -B $(BUILD_DIR) $(CMAKE_ARGS); fi
	@common/make/progress.sh keep_starting_points

build: $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	@common/make/run_tests.sh $(BUILD_DIR) -j $(JOBS)

test-host: build
	@common/make/run_tests.sh $(BUILD_DIR) -L 'host|cli' -j $(JOBS)

test-gpu: build
	@common/make/run_tests.sh $(BUILD_DIR) -L gpu -j $(JOBS)

run: build
	$(LAUNCH) $(BUILD_DIR)/bin/workshop_results --out $(BUILD_DIR)/results

# The benchmark: every solution and reference over a range of sizes, each measured twice.
# BENCH_ARGS="--flush-l2" evicts L2 before every timed run; "--reps 50" times more runs.
BENCH_ARGS ?= --reps 20
bench: build
	$(LAUNCH) $(BUILD_DIR)/bin/workshop_results --sweep --out $(BUILD_DIR)/results $(BENCH_ARGS)

# status.sh builds what it runs, one make status at a time in a build folder.
status: $(BUILD_DIR)/CMakeCache.txt
	@JOBS=$(JOBS) common/make/status.sh $(BUILD_DIR)

# The session starts at the first step not done yet; TRACK=matmul keeps to one track. WATCH=once: one screen.
watch: $(BUILD_DIR)/CMakeCache.txt
	@common/make/watch.sh $(BUILD_DIR) "" "$(TRACK)"

# How long make watch takes from saving step3/transpose.cu to its verdict on screen (needs a GPU and tmux).
bench-watch: $(BUILD_DIR)/CMakeCache.txt
	@tests/watch/latency.sh $(BUILD_DIR)

class:
	@common/room/class.sh

clean:
	rm -rf $(BUILD_DIR)
