// What the device can do, read from its attributes, so every figure can be printed next to its limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace workshop {

struct DeviceFacts {
    int index = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int max_threads_per_sm = 0;
    int64_t l2_bytes = 0;
    int64_t memory_clock_khz = 0, bus_width_bits = 0, sm_clock_khz = 0;
    size_t free_bytes = 0, total_bytes = 0;
    double dram_gbps = 0;    // theoretical, from clock and bus width
    double fp32_gflops = 0;  // theoretical, lanes x 2 x clock
};

// Exits with kExitNoDevice and one line saying why when no CUDA device can be used; returns the device's index.
// Makes no CUDA context.
int require_a_device();

// require_a_device(), then the CUDA context and the device's facts. Where no context can be made because other
// programs hold the GPU's memory, or because the GPU takes one process at a time and another holds it, exits with
// kExitOutOfMemory and one line starting "not enough device memory" or "GPU busy": that says nothing about the
// student's code, and make check says NOT CHECKED for it.
DeviceFacts require_device();

// Whether the GPU lets only one process at a time make a context (compute mode exclusive-process, which some
// clusters set): make check then runs its processes one after another. Makes no context.
bool gpu_takes_one_process_at_a_time();

// What a check of free memory does when there is too little: end the program with kExitOutOfMemory and one line
// on stderr, or, for a shape that make check tries only where it fits (step 1's round trip of more than 2^31
// bytes a matrix), print "SKIP not tried here: ..." and end it with kExitOk. A skippable shape must also leave
// 1 GiB to spare: make check's other programs (the timing run, the sanitizers) share the machine, and an
// allocation of the student's that fails for want of their memory would be a FAIL the student did not cause.
enum class WhenShort { Exit, Skip };

// Exits (or skips) when `bytes` will not fit in the free device memory.
void require_device_memory(size_t bytes, const std::string& what, WhenShort when_short = WhenShort::Exit);

// The same for host memory, against what Linux says is available (MemAvailable in /proc/meminfo, or less where
// the process's cgroup allows less: host_memory.hpp): past it, a run would swap for minutes or be killed with no
// word of why. No check where neither can be read.
void require_host_memory(size_t bytes, const std::string& what, WhenShort when_short = WhenShort::Exit);

std::string describe(const DeviceFacts& d);

}  // namespace workshop
