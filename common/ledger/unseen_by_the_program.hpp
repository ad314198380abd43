// The harness's own CUDA calls in the middle of the program's (in the wrappers the linker puts in place of the
// runtime's functions) must not show in what the program sees: its next cudaGetLastError(), or a stream capture it
// has under way.
#pragma once

#include <cuda_runtime.h>

namespace workshop {

// An error the harness's calls meet is cleared when this ends, unless the program had left one pending, which
// stays for it to find.
class ProgramsLastErrorKept {
public:
    ProgramsLastErrorKept() = default;
    ~ProgramsLastErrorKept() {
        if (pending_ == cudaSuccess) (void)cudaGetLastError();
    }
    ProgramsLastErrorKept(const ProgramsLastErrorKept&) = delete;
    ProgramsLastErrorKept& operator=(const ProgramsLastErrorKept&) = delete;

private:
    const cudaError_t pending_ = cudaPeekAtLastError();
};

// While this lives, the thread's capture mode is relaxed: a call that a capture in the stricter modes forbids would
// end the program's capture with an error, and the graph it makes with it.
class ProgramsCaptureKept {
public:
    ProgramsCaptureKept() { cudaThreadExchangeStreamCaptureMode(&mode_); }
    ~ProgramsCaptureKept() { cudaThreadExchangeStreamCaptureMode(&mode_); }
    ProgramsCaptureKept(const ProgramsCaptureKept&) = delete;
    ProgramsCaptureKept& operator=(const ProgramsCaptureKept&) = delete;

private:
    cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

}  // namespace workshop
