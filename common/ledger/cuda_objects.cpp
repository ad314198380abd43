#include "ledger/cuda_objects.hpp"

#include "ledger/ledger.hpp"

#include <cuda_runtime.h>

#include <atomic>

namespace workshop {

namespace {

enum Kind { kStreams, kEvents, kTextures, kSurfaces, kGraphs, kGraphExecs, kKinds };

// Never destroyed: a static object's destructor could run before the last destroy of another one.
Ledger& ledger(Kind kind) {
    static Ledger* const all = new Ledger[kKinds];
    return all[kind];
}

std::atomic<int> non_blocking_made{0};

cudaError_t stream_made(cudaError_t result, cudaStream_t* stream, unsigned int flags) {
    if (result == cudaSuccess && (flags & cudaStreamNonBlocking)) ++non_blocking_made;
    return ledger(kStreams).made(result, stream);
}

}  // namespace

Allocations streams_held() { return ledger(kStreams).held(); }
Allocations events_held() { return ledger(kEvents).held(); }
Allocations texture_objects_held() { return ledger(kTextures).held(); }
Allocations surface_objects_held() { return ledger(kSurfaces).held(); }
Allocations graphs_held() { return ledger(kGraphs).held(); }
Allocations executable_graphs_held() { return ledger(kGraphExecs).held(); }
int non_blocking_streams_made() { return non_blocking_made.load(); }

void forget_cuda_objects() {
    for (int kind = 0; kind < kKinds; ++kind) ledger(static_cast<Kind>(kind)).forget();
}

}  // namespace workshop

// The wrappers the linker puts in place of the CUDA runtime's functions; __real_X is the runtime's own X. In C++,
// cudaEventCreate(&e, flags) is an overload in cuda_runtime.h that calls cudaEventCreateWithFlags, and so is the
// five-argument cudaGraphInstantiate (CUDA 11's form), which calls the three-argument one.
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
cudaError_t __real_cudaGraphCreate(cudaGraph_t* graph, unsigned int flags);
cudaError_t __real_cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original);
cudaError_t __real_cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t __real_cudaGraphDestroy(cudaGraph_t graph);
cudaError_t __real_cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t __real_cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t __real_cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                  cudaGraphInstantiateParams* params);
cudaError_t __real_cudaGraphExecDestroy(cudaGraphExec_t exec);

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
    return workshop::ledger(workshop::kStreams).given_back(__real_cudaStreamDestroy(stream), stream);
}
cudaError_t __wrap_cudaEventCreate(cudaEvent_t* event) {
    return workshop::ledger(workshop::kEvents).made(__real_cudaEventCreate(event), event);
}
cudaError_t __wrap_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    return workshop::ledger(workshop::kEvents).made(__real_cudaEventCreateWithFlags(event, flags), event);
}
cudaError_t __wrap_cudaEventDestroy(cudaEvent_t event) {
    return workshop::ledger(workshop::kEvents).given_back(__real_cudaEventDestroy(event), event);
}
cudaError_t __wrap_cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                           const cudaTextureDesc* reading, const cudaResourceViewDesc* view) {
    const cudaError_t result = __real_cudaCreateTextureObject(texture, resource, reading, view);
    return workshop::ledger(workshop::kTextures).made(result, texture);
}
cudaError_t __wrap_cudaDestroyTextureObject(cudaTextureObject_t texture) {
    return workshop::ledger(workshop::kTextures).given_back(__real_cudaDestroyTextureObject(texture), texture);
}
cudaError_t __wrap_cudaCreateSurfaceObject(cudaSurfaceObject_t* surface, const cudaResourceDesc* resource) {
    const cudaError_t result = __real_cudaCreateSurfaceObject(surface, resource);
    return workshop::ledger(workshop::kSurfaces).made(result, surface);
}
cudaError_t __wrap_cudaDestroySurfaceObject(cudaSurfaceObject_t surface) {
    return workshop::ledger(workshop::kSurfaces).given_back(__real_cudaDestroySurfaceObject(surface), surface);
}
// A graph is made empty (cudaGraphCreate), as a copy (cudaGraphClone) or by capturing the work queued on a stream
// (cudaStreamEndCapture); each instantiation makes an executable graph, destroyed apart from the graph.
cudaError_t __wrap_cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
    return workshop::ledger(workshop::kGraphs).made(__real_cudaGraphCreate(graph, flags), graph);
}
cudaError_t __wrap_cudaGraphClone(cudaGraph_t* clone, cudaGraph_t original) {
    return workshop::ledger(workshop::kGraphs).made(__real_cudaGraphClone(clone, original), clone);
}
cudaError_t __wrap_cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    return workshop::ledger(workshop::kGraphs).made(__real_cudaStreamEndCapture(stream, graph), graph);
}
cudaError_t __wrap_cudaGraphDestroy(cudaGraph_t graph) {
    return workshop::ledger(workshop::kGraphs).given_back(__real_cudaGraphDestroy(graph), graph);
}
cudaError_t __wrap_cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
    return workshop::ledger(workshop::kGraphExecs).made(__real_cudaGraphInstantiate(exec, graph, flags), exec);
}
cudaError_t __wrap_cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags) {
    const cudaError_t result = __real_cudaGraphInstantiateWithFlags(exec, graph, flags);
    return workshop::ledger(workshop::kGraphExecs).made(result, exec);
}
cudaError_t __wrap_cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                                  cudaGraphInstantiateParams* params) {
    const cudaError_t result = __real_cudaGraphInstantiateWithParams(exec, graph, params);
    return workshop::ledger(workshop::kGraphExecs).made(result, exec);
}
cudaError_t __wrap_cudaGraphExecDestroy(cudaGraphExec_t exec) {
    return workshop::ledger(workshop::kGraphExecs).given_back(__real_cudaGraphExecDestroy(exec), exec);
}
}
