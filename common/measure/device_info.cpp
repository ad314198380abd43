#include "measure/device_info.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "step/cuda_check.cuh"
#include "ledger/host_memory.hpp"
#include "measure/metrics.hpp"
#include "step/step_api.cuh"

namespace workshop {

int require_a_device() {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess || count == 0) {
        if (error != cudaSuccess)
            fmt::print(stderr,
                       "no CUDA device: cudaGetDeviceCount says {} ({}); is there an NVIDIA GPU with its driver?\n",
                       cudaGetErrorName(error), cudaGetErrorString(error));
        else
            fmt::print(stderr, "no CUDA device: the driver lists none\n");
        std::exit(kExitNoDevice);
    }
    int index = 0;
    CUDA_CHECK(cudaGetDevice(&index));
    return index;
}

namespace {

// cudaFree(nullptr) frees nothing but makes the context, here, before any of the student's code: a context that
// cannot be made is then said in a line of its own, not as a failure of whatever CUDA call came first.
void make_context(const DeviceFacts& d) {
    const cudaError_t made = cudaFree(nullptr);
    if (made == cudaSuccess) return;
    if (made == cudaErrorMemoryAllocation) {
        // Not only memory: a GPU takes only so many processes, and refuses a context with this error past that,
        // however much of its memory is free.
        fmt::print(stderr,
                   "not enough device memory: no room for a CUDA context on GPU {} ({}); other programs hold "
                   "its memory, or as many processes as it takes\n",
                   d.index, d.name);
        std::exit(kExitOutOfMemory);
    }
    if (made == cudaErrorDevicesUnavailable) {
        if (attribute_of_this_gpu(cudaDevAttrComputeMode) == cudaComputeModeProhibited) {
            fmt::print(stderr,
                       "no CUDA device: GPU {} ({}) is set to run no CUDA programs (compute mode "
                       "prohibited)\n",
                       d.index, d.name);
            std::exit(kExitNoDevice);
        }
        fmt::print(stderr,
                   "GPU busy: GPU {} ({}) takes one process at a time (compute mode exclusive-process), and "
                   "another process holds it\n",
                   d.index, d.name);
        std::exit(kExitOutOfMemory);
    }
    CUDA_CHECK(made);
}

}  // namespace

DeviceFacts require_device() {
    DeviceFacts d;
    d.index = require_a_device();
    auto attr = [&](cudaDeviceAttr a) {
        int v = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&v, a, d.index));
        return v;
    };
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, d.index));
    d.name = prop.name;
    make_context(d);
    d.cc_major = attr(cudaDevAttrComputeCapabilityMajor);
    d.cc_minor = attr(cudaDevAttrComputeCapabilityMinor);
    d.sm_count = attr(cudaDevAttrMultiProcessorCount);
    d.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
    d.l2_bytes = attr(cudaDevAttrL2CacheSize);
    d.memory_clock_khz = attr(cudaDevAttrMemoryClockRate);
    d.bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
    d.sm_clock_khz = attr(cudaDevAttrClockRate);
    CUDA_CHECK(cudaMemGetInfo(&d.free_bytes, &d.total_bytes));
    d.dram_gbps = theoretical_dram_gbps(d.memory_clock_khz, d.bus_width_bits);
    d.fp32_gflops = fp32_peak_gflops(d.sm_count, fp32_lanes_per_sm(d.cc_major, d.cc_minor), d.sm_clock_khz);
    return d;
}

bool gpu_takes_one_process_at_a_time() {
    // WORKSHOP_ONE_PROCESS_AT_A_TIME=1 rehearses such a GPU on one that takes many.
    const char* rehearse = std::getenv("WORKSHOP_ONE_PROCESS_AT_A_TIME");
    if (rehearse && std::string(rehearse) == "1") return true;
    return attribute_of_this_gpu(cudaDevAttrComputeMode) == cudaComputeModeExclusiveProcess;
}

namespace {

void exit_when_short(const char* memory, size_t bytes, size_t free_bytes, const std::string& what,
                     WhenShort when_short) {
    const bool skip = when_short == WhenShort::Skip;
    const size_t spare = skip ? size_t{1} << 30 : 0;  // device_info.hpp says why a skippable shape leaves some
    if (spare <= free_bytes && bytes <= free_bytes - spare) return;
    const std::string line = fmt::format(
        "not enough {} memory: {} needs {} bytes ({:.2f} GiB){}, only {} bytes ({:.2f} GiB) are free", memory, what,
        bytes, bytes / 1073741824.0, skip ? " and 1 GiB to spare" : "", free_bytes, free_bytes / 1073741824.0);
    if (skip) {
        fmt::print("SKIP not tried here: {}\n", line);
        std::exit(kExitOk);
    }
    fmt::print(stderr, "{}\n", line);
    std::exit(kExitOutOfMemory);
}

// A cap on what a program may use (the environment variable `name`, in bytes), to rehearse a smaller machine
// and to test the message on a large one.
size_t capped(size_t free_bytes, const char* name) {
    if (const char* limit = std::getenv(name)) return std::min<size_t>(free_bytes, std::strtoull(limit, nullptr, 10));
    return free_bytes;
}

}  // namespace

void require_device_memory(size_t bytes, const std::string& what, WhenShort when_short) {
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    exit_when_short("device", bytes, capped(free_bytes, "WORKSHOP_DEVICE_MEMORY_LIMIT"), what, when_short);
}

void require_host_memory(size_t bytes, const std::string& what, WhenShort when_short) {
    exit_when_short("host", bytes, capped(host_bytes_available(), "WORKSHOP_HOST_MEMORY_LIMIT"), what, when_short);
}

std::string describe(const DeviceFacts& d) {
    return fmt::format("{} (sm_{}{}, {} SMs, {:.0f} MiB L2): DRAM {:.0f} GB/s theoretical, FP32 {:.1f} TFLOP/s peak",
                       d.name, d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes / 1048576.0, d.dram_gbps,
                       d.fp32_gflops / 1000.0);
}

}  // namespace workshop

int attribute_of_this_gpu(cudaDeviceAttr attribute) {
    int device = 0, value = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&value, attribute, device) != cudaSuccess) {
        (void)cudaGetLastError();  // not an error for the caller: it goes without
        return 0;
    }
    return value;
}
