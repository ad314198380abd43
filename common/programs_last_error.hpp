// The harness's own CUDA calls in the middle of the program's (in the wrappers the linker puts in place of the
// runtime's functions) must not change what the program's next cudaGetLastError() says.
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

}  // namespace workshop
