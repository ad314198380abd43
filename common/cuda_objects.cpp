#include "cuda_objects.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <unordered_set>

namespace workshop {

namespace {

struct Held {
    std::mutex mutex;
    std::unordered_set<uintptr_t> handles;
};

enum Kind { kStreams, kEvents, kTextures, kSurfaces, kKinds };

// Never destroyed: a static object's destructor could run before the last destroy of another one.
Held& held(Kind kind) {
    static Held* const all = new Held[kKinds];
    return all[kind];
}

template <typename Handle>
uintptr_t key(Handle handle) {
    if constexpr (std::is_pointer_v<Handle>)
        return reinterpret_cast<uintptr_t>(handle);
    else
        return static_cast<uintptr_t>(handle);
}

// Only a call that succeeds counts: destroying what was never made fails and changes nothing.
template <typename Handle>
cudaError_t made(Kind kind, cudaError_t result, const Handle* handle) {
    if (result != cudaSuccess || !handle) return result;
    Held& h = held(kind);
    const std::lock_guard<std::mutex> lock(h.mutex);
    h.handles.insert(key(*handle));
    return result;
}

template <typename Handle>
cudaError_t destroyed(Kind kind, cudaError_t result, Handle handle) {
    if (result != cudaSuccess) return result;
    Held& h = held(kind);
    const std::lock_guard<std::mutex> lock(h.mutex);
    h.handles.erase(key(handle));
    return result;
}

Allocations count(Held& h) {
    const std::lock_guard<std::mutex> lock(h.mutex);
    return {static_cast<int64_t>(h.handles.size()), 0};
}

void forget(Held& h) {
    const std::lock_guard<std::mutex> lock(h.mutex);
    h.handles.clear();
}

std::atomic<int> non_blocking_made{0};

cudaError_t stream_made(cudaError_t result, cudaStream_t* stream, unsigned int flags) {
    if (result == cudaSuccess && (flags & cudaStreamNonBlocking)) ++non_blocking_made;
    return made(kStreams, result, stream);
}

}  // namespace

Allocations streams_held() { return count(held(kStreams)); }
Allocations events_held() { return count(held(kEvents)); }
Allocations texture_objects_held() { return count(held(kTextures)); }
Allocations surface_objects_held() { return count(held(kSurfaces)); }
int non_blocking_streams_made() { return non_blocking_made.load(); }

void forget_cuda_objects() {
    for (int kind = 0; kind < kKinds; ++kind) forget(held(static_cast<Kind>(kind)));
}

}  // namespace workshop

// The wrappers the linker puts in place of the CUDA runtime's functions; __real_X is the runtime's own X. In C++,
// cudaEventCreate(&e, flags) is an overload in cuda_runtime.h that calls cudaEventCreateWithFlags.
extern "C" {
cudaError_t __real_cudaStreamCreate(cudaStream_t* stream);
cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t __real_cudaStreamDestroy(cudaStream_t stream);
cudaError_t __real_cudaEventCreate(cudaEvent_t* event);
cudaError_t __real_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t __real_cudaEventDestroy(cudaEvent_t event);
cudaError_t __real_cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                           const cudaTextureDesc* reading, const cudaResourceViewDesc* view);
cudaError_t __real_cudaDestroyTextureObject(cudaTextureObject_t texture);
cudaError_t __real_cudaCreateSurfaceObject(cudaSurfaceObject_t* surface, const cudaResourceDesc* resource);
cudaError_t __real_cudaDestroySurfaceObject(cudaSurfaceObject_t surface);

cudaError_t __wrap_cudaStreamCreate(cudaStream_t* stream) {
    return workshop::stream_made(__real_cudaStreamCreate(stream), stream, cudaStreamDefault);
}
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    return workshop::stream_made(__real_cudaStreamCreateWithFlags(stream, flags), stream, flags);
}
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
    return workshop::stream_made(__real_cudaStreamCreateWithPriority(stream, flags, priority), stream, flags);
}
cudaError_t __wrap_cudaStreamDestroy(cudaStream_t stream) {
    return workshop::destroyed(workshop::kStreams, __real_cudaStreamDestroy(stream), stream);
}
cudaError_t __wrap_cudaEventCreate(cudaEvent_t* event) {
    return workshop::made(workshop::kEvents, __real_cudaEventCreate(event), event);
}
cudaError_t __wrap_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    return workshop::made(workshop::kEvents, __real_cudaEventCreateWithFlags(event, flags), event);
}
cudaError_t __wrap_cudaEventDestroy(cudaEvent_t event) {
    return workshop::destroyed(workshop::kEvents, __real_cudaEventDestroy(event), event);
}
cudaError_t __wrap_cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                           const cudaTextureDesc* reading, const cudaResourceViewDesc* view) {
    const cudaError_t result = __real_cudaCreateTextureObject(texture, resource, reading, view);
    return workshop::made(workshop::kTextures, result, texture);
}
cudaError_t __wrap_cudaDestroyTextureObject(cudaTextureObject_t texture) {
    return workshop::destroyed(workshop::kTextures, __real_cudaDestroyTextureObject(texture), texture);
}
cudaError_t __wrap_cudaCreateSurfaceObject(cudaSurfaceObject_t* surface, const cudaResourceDesc* resource) {
    const cudaError_t result = __real_cudaCreateSurfaceObject(surface, resource);
    return workshop::made(workshop::kSurfaces, result, surface);
}
cudaError_t __wrap_cudaDestroySurfaceObject(cudaSurfaceObject_t surface) {
    return workshop::destroyed(workshop::kSurfaces, __real_cudaDestroySurfaceObject(surface), surface);
}
}
