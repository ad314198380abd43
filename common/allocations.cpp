#include "allocations.hpp"

#include "cuda_objects.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace workshop {

namespace {

struct Ledger {
    std::mutex mutex;
    std::unordered_map<const void*, size_t> sizes;
    int64_t bytes = 0;
};

// Never destroyed: a static object's destructor could run before the last free of another one.
Ledger& device_ledger() {
    static Ledger* const instance = new Ledger;
    return *instance;
}

Ledger& pinned_host_ledger() {
    static Ledger* const instance = new Ledger;
    return *instance;
}

Ledger& registered_host_ledger() {
    static Ledger* const instance = new Ledger;
    return *instance;
}

cudaError_t allocated(Ledger& l, cudaError_t result, void** pointer, size_t bytes) {
    if (result != cudaSuccess || !pointer || !*pointer) return result;
    const std::lock_guard<std::mutex> lock(l.mutex);
    l.bytes += static_cast<int64_t>(bytes) - static_cast<int64_t>(l.sizes[*pointer]);
    l.sizes[*pointer] = bytes;
    return result;
}

// Only a free that succeeds counts: cudaFree of a pointer that was never allocated fails and changes nothing.
cudaError_t freed(Ledger& l, cudaError_t result, const void* pointer) {
    if (result != cudaSuccess || !pointer) return result;
    const std::lock_guard<std::mutex> lock(l.mutex);
    if (const auto found = l.sizes.find(pointer); found != l.sizes.end()) {
        l.bytes -= static_cast<int64_t>(found->second);
        l.sizes.erase(found);
    }
    return result;
}

size_t array_bytes(const cudaChannelFormatDesc* desc, size_t width, size_t height, size_t depth) {
    if (!desc) return 0;
    const size_t bits_per_texel = static_cast<size_t>(desc->x) + desc->y + desc->z + desc->w;
    return bits_per_texel / 8 * width * std::max<size_t>(height, 1) * std::max<size_t>(depth, 1);
}

std::atomic<int> resets{0};

void forget(Ledger& l) {
    const std::lock_guard<std::mutex> lock(l.mutex);
    l.sizes.clear();
    l.bytes = 0;
}

Allocations held(Ledger& l) {
    const std::lock_guard<std::mutex> lock(l.mutex);
    return {static_cast<int64_t>(l.sizes.size()), l.bytes};
}

// Everything counted is gone with the context: a ledger that kept it would report it as leaked.
void device_was_reset() {
    forget(device_ledger());
    forget(pinned_host_ledger());
    forget(registered_host_ledger());
    forget_cuda_objects();
    ++resets;
}

}  // namespace

Allocations device_allocations_held() { return held(device_ledger()); }
Allocations pinned_host_allocations_held() { return held(pinned_host_ledger()); }
Allocations host_registrations_held() { return held(registered_host_ledger()); }
int device_resets() { return resets.load(); }

}  // namespace workshop

// The wrappers the linker puts in place of the CUDA runtime's functions; __real_X is the runtime's own X.
extern "C" {
cudaError_t __real_cudaMalloc(void** pointer, size_t bytes);
cudaError_t __real_cudaMallocManaged(void** pointer, size_t bytes, unsigned int flags);
cudaError_t __real_cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height);
cudaError_t __real_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream);
cudaError_t __real_cudaMallocFromPoolAsync(void** pointer, size_t bytes, cudaMemPool_t pool, cudaStream_t stream);
cudaError_t __real_cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent);
cudaError_t __real_cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                                   unsigned int flags);
cudaError_t __real_cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                     unsigned int flags);
cudaError_t __real_cudaFree(void* pointer);
cudaError_t __real_cudaFreeArray(cudaArray_t array);
cudaError_t __real_cudaFreeAsync(void* pointer, cudaStream_t stream);
cudaError_t __real_cudaMallocHost(void** pointer, size_t bytes);
cudaError_t __real_cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags);
cudaError_t __real_cudaFreeHost(void* pointer);
cudaError_t __real_cudaHostRegister(void* pointer, size_t bytes, unsigned int flags);
cudaError_t __real_cudaHostUnregister(void* pointer);
cudaError_t __real_cudaDeviceReset();

cudaError_t __wrap_cudaMalloc(void** pointer, size_t bytes) {
    return workshop::allocated(workshop::device_ledger(), __real_cudaMalloc(pointer, bytes), pointer, bytes);
}
cudaError_t __wrap_cudaMallocManaged(void** pointer, size_t bytes, unsigned int flags) {
    const cudaError_t result = __real_cudaMallocManaged(pointer, bytes, flags);
    return workshop::allocated(workshop::device_ledger(), result, pointer, bytes);
}
cudaError_t __wrap_cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height) {
    const cudaError_t result = __real_cudaMallocPitch(pointer, pitch, width, height);
    const size_t bytes = result == cudaSuccess && pitch ? *pitch * height : 0;
    return workshop::allocated(workshop::device_ledger(), result, pointer, bytes);
}
cudaError_t __wrap_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream) {
    const cudaError_t result = __real_cudaMallocAsync(pointer, bytes, stream);
    return workshop::allocated(workshop::device_ledger(), result, pointer, bytes);
}
// In C++, cudaMallocAsync(&p, bytes, pool, stream) is an overload in cuda_runtime.h that calls this one.
cudaError_t __wrap_cudaMallocFromPoolAsync(void** pointer, size_t bytes, cudaMemPool_t pool, cudaStream_t stream) {
    const cudaError_t result = __real_cudaMallocFromPoolAsync(pointer, bytes, pool, stream);
    return workshop::allocated(workshop::device_ledger(), result, pointer, bytes);
}
cudaError_t __wrap_cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent) {
    const cudaError_t result = __real_cudaMalloc3D(pitched, extent);
    if (result != cudaSuccess || !pitched) return result;
    return workshop::allocated(workshop::device_ledger(), result, &pitched->ptr,
                               pitched->pitch * extent.height * extent.depth);
}
// A CUDA array (what a texture object may read from) is counted with its texels' bytes as asked for; its layout
// in memory is the driver's and unknown here. A height or depth of 0 means the array has fewer dimensions.
cudaError_t __wrap_cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                                   unsigned int flags) {
    const cudaError_t result = __real_cudaMallocArray(array, desc, width, height, flags);
    return workshop::allocated(workshop::device_ledger(), result, reinterpret_cast<void**>(array),
                               workshop::array_bytes(desc, width, height, 0));
}
cudaError_t __wrap_cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                     unsigned int flags) {
    const cudaError_t result = __real_cudaMalloc3DArray(array, desc, extent, flags);
    return workshop::allocated(workshop::device_ledger(), result, reinterpret_cast<void**>(array),
                               workshop::array_bytes(desc, extent.width, extent.height, extent.depth));
}
cudaError_t __wrap_cudaFreeArray(cudaArray_t array) {
    return workshop::freed(workshop::device_ledger(), __real_cudaFreeArray(array), array);
}
cudaError_t __wrap_cudaFree(void* pointer) {
    return workshop::freed(workshop::device_ledger(), __real_cudaFree(pointer), pointer);
}
cudaError_t __wrap_cudaFreeAsync(void* pointer, cudaStream_t stream) {
    return workshop::freed(workshop::device_ledger(), __real_cudaFreeAsync(pointer, stream), pointer);
}
// In C++, cudaMallocHost(&p, bytes) with a typed pointer is a template of cuda_runtime.h that calls cudaHostAlloc.
cudaError_t __wrap_cudaMallocHost(void** pointer, size_t bytes) {
    const cudaError_t result = __real_cudaMallocHost(pointer, bytes);
    return workshop::allocated(workshop::pinned_host_ledger(), result, pointer, bytes);
}
cudaError_t __wrap_cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
    const cudaError_t result = __real_cudaHostAlloc(pointer, bytes, flags);
    return workshop::allocated(workshop::pinned_host_ledger(), result, pointer, bytes);
}
cudaError_t __wrap_cudaFreeHost(void* pointer) {
    return workshop::freed(workshop::pinned_host_ledger(), __real_cudaFreeHost(pointer), pointer);
}
cudaError_t __wrap_cudaHostRegister(void* pointer, size_t bytes, unsigned int flags) {
    const cudaError_t result = __real_cudaHostRegister(pointer, bytes, flags);
    return workshop::allocated(workshop::registered_host_ledger(), result, &pointer, bytes);
}
cudaError_t __wrap_cudaHostUnregister(void* pointer) {
    return workshop::freed(workshop::registered_host_ledger(), __real_cudaHostUnregister(pointer), pointer);
}
cudaError_t __wrap_cudaDeviceReset() {
    const cudaError_t result = __real_cudaDeviceReset();
    workshop::device_was_reset();
    return result;
}
}
