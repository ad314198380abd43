#include "non_blocking_streams.hpp"

#include <cuda_runtime.h>

#include <atomic>

namespace workshop {

namespace {

std::atomic<int> made{0};

cudaError_t counted(cudaError_t result, unsigned int flags) {
    if (result == cudaSuccess && (flags & cudaStreamNonBlocking)) ++made;
    return result;
}

}  // namespace

int non_blocking_streams_made() { return made.load(); }

}  // namespace workshop

// The wrappers the linker puts in place of the CUDA runtime's functions; __real_X is the runtime's own X.
extern "C" {
cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);

cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    return workshop::counted(__real_cudaStreamCreateWithFlags(stream, flags), flags);
}
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
    return workshop::counted(__real_cudaStreamCreateWithPriority(stream, flags, priority), flags);
}
}
