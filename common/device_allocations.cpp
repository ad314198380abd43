#include "device_allocations.hpp"

#include <cuda_runtime.h>

#include <mutex>
#include <unordered_map>

namespace workshop {

namespace {

struct Ledger {
    std::mutex mutex;
    std::unordered_map<const void*, size_t> sizes;
    int64_t bytes = 0;
};

// Never destroyed: a static object's destructor could run before the last cudaFree of another one.
Ledger& ledger() {
    static Ledger* const instance = new Ledger;
    return *instance;
}

cudaError_t allocated(cudaError_t result, void** pointer, size_t bytes) {
    if (result != cudaSuccess || !pointer || !*pointer) return result;
    Ledger& l = ledger();
    const std::lock_guard<std::mutex> lock(l.mutex);
    l.bytes += static_cast<int64_t>(bytes) - static_cast<int64_t>(l.sizes[*pointer]);
    l.sizes[*pointer] = bytes;
    return result;
}

// Only a free that succeeds counts: cudaFree of a pointer that was never allocated fails and changes nothing.
cudaError_t freed(cudaError_t result, const void* pointer) {
    if (result != cudaSuccess || !pointer) return result;
    Ledger& l = ledger();
    const std::lock_guard<std::mutex> lock(l.mutex);
    if (const auto found = l.sizes.find(pointer); found != l.sizes.end()) {
        l.bytes -= static_cast<int64_t>(found->second);
        l.sizes.erase(found);
    }
    return result;
}

}  // namespace

DeviceAllocations device_allocations_held() {
    Ledger& l = ledger();
    const std::lock_guard<std::mutex> lock(l.mutex);
    return {static_cast<int64_t>(l.sizes.size()), l.bytes};
}

}  // namespace workshop

// The wrappers the linker puts in place of the CUDA runtime's functions; __real_X is the runtime's own X.
extern "C" {
cudaError_t __real_cudaMalloc(void** pointer, size_t bytes);
cudaError_t __real_cudaMallocManaged(void** pointer, size_t bytes, unsigned int flags);
cudaError_t __real_cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height);
cudaError_t __real_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream);
cudaError_t __real_cudaFree(void* pointer);
cudaError_t __real_cudaFreeAsync(void* pointer, cudaStream_t stream);

cudaError_t __wrap_cudaMalloc(void** pointer, size_t bytes) {
    return workshop::allocated(__real_cudaMalloc(pointer, bytes), pointer, bytes);
}
cudaError_t __wrap_cudaMallocManaged(void** pointer, size_t bytes, unsigned int flags) {
    return workshop::allocated(__real_cudaMallocManaged(pointer, bytes, flags), pointer, bytes);
}
cudaError_t __wrap_cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height) {
    const cudaError_t result = __real_cudaMallocPitch(pointer, pitch, width, height);
    return workshop::allocated(result, pointer, result == cudaSuccess && pitch ? *pitch * height : 0);
}
cudaError_t __wrap_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream) {
    return workshop::allocated(__real_cudaMallocAsync(pointer, bytes, stream), pointer, bytes);
}
cudaError_t __wrap_cudaFree(void* pointer) { return workshop::freed(__real_cudaFree(pointer), pointer); }
cudaError_t __wrap_cudaFreeAsync(void* pointer, cudaStream_t stream) {
    return workshop::freed(__real_cudaFreeAsync(pointer, stream), pointer);
}
}
