#include "step/cuda_check.cuh"

#include <fmt/format.h>

#include <cstdlib>

namespace workshop {

void fail_cuda_call(cudaError_t error, const char* call, const char* file, int line) {
    fmt::print(stderr, "{}:{}: {} failed: {} ({})\n", file, line, call, cudaGetErrorName(error),
               cudaGetErrorString(error));
    std::exit(error == cudaErrorMemoryAllocation ? kExitOutOfMemory : kExitCudaError);
}

void fail_out_of_memory(size_t bytes_asked) {
    size_t free_bytes = 0, total_bytes = 0;
    (void)cudaGetLastError();
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    fmt::print(stderr, "not enough device memory: {} bytes ({:.2f} GiB) asked for, {} bytes ({:.2f} GiB) free\n",
               bytes_asked, bytes_asked / 1073741824.0, free_bytes, free_bytes / 1073741824.0);
    std::exit(kExitOutOfMemory);
}

namespace {
thread_local LaunchFailureCapture* active_capture = nullptr;
}

LaunchFailureCapture::LaunchFailureCapture() : outer_(active_capture) { active_capture = this; }
LaunchFailureCapture::~LaunchFailureCapture() { active_capture = outer_; }

void LaunchFailureCapture::record(cudaError_t error, const char* file, int line) {
    if (error_ != cudaSuccess) return;
    error_ = error;
    file_ = file;
    line_ = line;
}

void check_launch(cudaError_t error, const char* file, int line) {
    if (error == cudaSuccess) return;
    if (active_capture) return active_capture->record(error, file, line);
    fail_cuda_call(error, "kernel launch", file, line);
}

}  // namespace workshop
