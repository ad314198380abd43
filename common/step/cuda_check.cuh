// Checked CUDA calls. Every runtime call and every launch in the workshop goes through one of these, so a
// failure names the call, the file, the line and what the error means, instead of surfacing later as a
// wrong answer or a mysterious hang.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "base/exit_codes.hpp"

namespace workshop {

// Prints "file:line: call failed: cudaErrorX (meaning)" and exits with ExitCode::CudaError.
[[noreturn]] void fail_cuda_call(cudaError_t error, const char* call, const char* file, int line);

// Prints "not enough device memory: ... bytes asked for, ... free" and exits with kExitOutOfMemory.
[[noreturn]] void fail_out_of_memory(size_t bytes_asked);

inline void check_cuda(cudaError_t error, const char* call, const char* file, int line) {
    if (error != cudaSuccess) fail_cuda_call(error, call, file, line);
}

// A failed launch normally ends the program. While the harness checks a step, it captures the failure
// instead: the step's launch function returns as usual, and the harness reports the error together with the
// grid and block the step launched, then carries on with the next shape.
class LaunchFailureCapture {
public:
    LaunchFailureCapture();
    ~LaunchFailureCapture();
    LaunchFailureCapture(const LaunchFailureCapture&) = delete;
    LaunchFailureCapture& operator=(const LaunchFailureCapture&) = delete;

    cudaError_t error() const { return error_; }
    const char* file() const { return file_; }
    int line() const { return line_; }
    void record(cudaError_t error, const char* file, int line);  // keeps the first failure

private:
    LaunchFailureCapture* outer_;
    cudaError_t error_ = cudaSuccess;
    const char* file_ = "";
    int line_ = 0;
};

// CUDA_CHECK_LAUNCH() calls this: records the failure where a capture is active, ends the program elsewhere.
void check_launch(cudaError_t error, const char* file, int line);

}  // namespace workshop

// Wrap every CUDA runtime call: CUDA_CHECK(cudaMalloc(&p, bytes));
#define CUDA_CHECK(call) ::workshop::check_cuda((call), #call, __FILE__, __LINE__)

// After a <<<...>>> launch: a bad configuration is reported here; a fault inside the kernel is reported by the
// next synchronising call, which is checked too.
#define CUDA_CHECK_LAUNCH() ::workshop::check_launch(cudaGetLastError(), __FILE__, __LINE__)
