#include "ledger/allocations.hpp"

#include "ledger/cuda_objects.hpp"
#include "ledger/ledger.hpp"
#include "verify/matrix_data.hpp"
#include "ledger/unseen_by_the_program.hpp"

#include <cuda.h>  // the driver API's types only: its one function used here is looked up, not linked
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

// The runtime's own call, past the wrapper in cuda_objects.cpp: the poison's stream is the harness's, not counted.
extern "C" cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);

namespace workshop {

namespace {

// kFilledDevice: the device allocations that got new memory's NaN during a check, until they are freed.
enum Memory { kDevice, kPinnedHost, kRegisteredHost, kFilledDevice, kMemories };

// Never destroyed: a static object's destructor could run before the last free of another one.
Ledger& ledger(Memory memory) {
    static Ledger* const all = new Ledger[kMemories];
    return all[memory];
}

size_t array_bytes(const cudaChannelFormatDesc* desc, size_t width, size_t height, size_t depth) {
    if (!desc) return 0;
    const size_t bits_per_texel = static_cast<size_t>(desc->x) + desc->y + desc->z + desc->w;
    return bits_per_texel / 8 * width * std::max<size_t>(height, 1) * std::max<size_t>(depth, 1);
}

std::atomic<int> resets{0};
std::atomic<int> poisoning{0};  // FreshMemoryPoisoned objects alive

// A non-blocking stream, so that the poison waits for none of the program's work and none of it waits for the
// poison. Made again after a reset, which destroyed it.
cudaStream_t poison_stream() {
    static std::mutex mutex;
    static cudaStream_t stream = nullptr;
    static int made_after_resets = -1;
    const std::lock_guard<std::mutex> lock(mutex);
    if (made_after_resets != resets.load()) {
        if (__real_cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return nullptr;
        made_after_resets = resets.load();
    }
    return stream;
}

// The driver's 32-bit fill. The runtime's memsets repeat one byte, and the only byte that makes a NaN that way is
// 0xFF, the output's poison: new memory gets a NaN of its own, so that the verdict can say where a value came from.
// Looked up through the runtime rather than linked, so that the programs still start on a machine with no driver.
using MemsetD32Async = CUresult (*)(CUdeviceptr, unsigned int, size_t, CUstream);

MemsetD32Async memset_d32_async() {
    static const MemsetD32Async function = [] {
        void* found = nullptr;
        cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        const cudaError_t result =
            cudaGetDriverEntryPointByVersion("cuMemsetD32Async", &found, 12000, cudaEnableDefault, &status);
#else
        const cudaError_t result = cudaGetDriverEntryPoint("cuMemsetD32Async", &found, cudaEnableDefault, &status);
#endif
        const bool ok = result == cudaSuccess && status == cudaDriverEntryPointSuccess && found;
        return ok ? reinterpret_cast<MemsetD32Async>(found) : nullptr;
    }();
    return function;
}

// New memory's NaN in every whole word; a last part word, and everything where the lookup failed, as 0xFF bytes.
cudaError_t fill_fresh(void* pointer, size_t bytes, cudaStream_t stream) {
    const MemsetD32Async memset_d32 = memset_d32_async();
    const size_t words = memset_d32 ? bytes / sizeof(uint32_t) : 0;
    if (words && memset_d32(reinterpret_cast<CUdeviceptr>(pointer), kFreshPoisonBits, words, stream) != CUDA_SUCCESS)
        return cudaErrorUnknown;
    const size_t done = words * sizeof(uint32_t);
    return done == bytes ? cudaSuccess
                         : cudaMemsetAsync(static_cast<char*>(pointer) + done, kPoisonByte, bytes - done, stream);
}

// Only while a check runs, and only what the call really allocated.
bool to_poison(cudaError_t allocated, const void* pointer, size_t bytes) {
    return a_check_runs() && allocated == cudaSuccess && pointer && bytes > 0;
}

// Fills `bytes` of fresh memory with the poison: before the call returns, or in `stream`'s order for the stream-ordered
// allocations. Nothing of it may show in the program's own error checks, or change what it captures into a graph.
void poison_fresh(cudaError_t allocated, void* pointer, size_t bytes, const cudaStream_t* in_order_of = nullptr) {
    if (!to_poison(allocated, pointer, bytes)) return;
    const ProgramsLastErrorKept last_error_kept;  // declared first: it ends after the capture mode is restored
    const ProgramsCaptureKept capture_kept;
    cudaError_t result = cudaErrorInvalidResourceHandle;
    bool filled = false;  // not an allocation captured into a graph: that is no memory yet
    if (in_order_of) {
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        result = cudaStreamIsCapturing(*in_order_of, &capture);
        filled = result == cudaSuccess && capture == cudaStreamCaptureStatusNone;
        if (filled) result = fill_fresh(pointer, bytes, *in_order_of);
    } else if (const cudaStream_t stream = poison_stream()) {
        filled = true;
        result = fill_fresh(pointer, bytes, stream);
        if (result == cudaSuccess) result = cudaStreamSynchronize(stream);
    }
    if (filled && result == cudaSuccess) ledger(kFilledDevice).made(result, &pointer, bytes);
}

// Device memory that got the NaN during an earlier check and is still held (a buffer a step's function keeps from
// one call to the next) holds what that check's calls left there. make check runs all its shapes in one process,
// so without this only the shape that allocated such a buffer would find the NaN in it, and a kernel that reads a
// part of it that nothing writes (the padding of a copy) would pass every later shape on an earlier shape's values.
void refill_memory_kept_from_earlier_checks() {
    const auto kept = ledger(kFilledDevice).entries();
    if (kept.empty()) return;
    const ProgramsLastErrorKept last_error_kept;
    if (cudaDeviceSynchronize() != cudaSuccess) return;  // nothing queued may still use it
    for (const auto& [key, bytes] : kept) poison_fresh(cudaSuccess, reinterpret_cast<void*>(key), bytes);
}

// Pinned host memory, likewise, on the host's threads: a buffer that stages the input on its way to the device is
// as new as the device's, and the operating system hands out its pages as zeros.
void poison_fresh_host(cudaError_t allocated, void* pointer, size_t bytes) {
    if (!to_poison(allocated, pointer, bytes)) return;
    const auto words = static_cast<int64_t>(bytes / sizeof(uint32_t));
    auto* word = static_cast<uint32_t*>(pointer);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < words; ++i) word[i] = kFreshPoisonBits;
    const size_t done = static_cast<size_t>(words) * sizeof(uint32_t);
    std::memset(static_cast<char*>(pointer) + done, kPoisonByte, bytes - done);
}

// Everything counted is gone with the context: a ledger that kept it would report it as leaked.
void device_was_reset() {
    for (int memory = 0; memory < kMemories; ++memory) ledger(static_cast<Memory>(memory)).forget();
    forget_cuda_objects();
    ++resets;
}

}  // namespace

Allocations device_allocations_held() { return ledger(kDevice).held(); }
Allocations pinned_host_allocations_held() { return ledger(kPinnedHost).held(); }
Allocations host_registrations_held() { return ledger(kRegisteredHost).held(); }
int device_resets() { return resets.load(); }

FreshMemoryPoisoned::FreshMemoryPoisoned() {
    // After the count went up: the refill goes through poison_fresh, which fills only while a check runs.
    if (poisoning++ == 0) refill_memory_kept_from_earlier_checks();
}
FreshMemoryPoisoned::~FreshMemoryPoisoned() { --poisoning; }
bool a_check_runs() { return poisoning.load() > 0; }

HostRegistrationsUndone::HostRegistrationsUndone() {
    for (const auto& [key, bytes] : ledger(kRegisteredHost).entries()) registered_before_.push_back(key);
}
HostRegistrationsUndone::~HostRegistrationsUndone() {
    const ProgramsLastErrorKept last_error_kept;
    for (const auto& [key, bytes] : ledger(kRegisteredHost).entries())
        if (std::find(registered_before_.begin(), registered_before_.end(), key) == registered_before_.end())
            (void)cudaHostUnregister(reinterpret_cast<void*>(key));  // through the wrapper: the ledger forgets it
}

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
    const cudaError_t result = __real_cudaMalloc(pointer, bytes);
    workshop::poison_fresh(result, pointer ? *pointer : nullptr, bytes);
    return workshop::ledger(workshop::kDevice).made(result, pointer, bytes);
}
cudaError_t __wrap_cudaMallocManaged(void** pointer, size_t bytes, unsigned int flags) {
    const cudaError_t result = __real_cudaMallocManaged(pointer, bytes, flags);
    workshop::poison_fresh(result, pointer ? *pointer : nullptr, bytes);
    return workshop::ledger(workshop::kDevice).made(result, pointer, bytes);
}
cudaError_t __wrap_cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height) {
    const cudaError_t result = __real_cudaMallocPitch(pointer, pitch, width, height);
    const size_t bytes = result == cudaSuccess && pitch ? *pitch * height : 0;
    workshop::poison_fresh(result, pointer ? *pointer : nullptr, bytes);
    return workshop::ledger(workshop::kDevice).made(result, pointer, bytes);
}
cudaError_t __wrap_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream) {
    const cudaError_t result = __real_cudaMallocAsync(pointer, bytes, stream);
    workshop::poison_fresh(result, pointer ? *pointer : nullptr, bytes, &stream);
    return workshop::ledger(workshop::kDevice).made(result, pointer, bytes);
}
// In C++, cudaMallocAsync(&p, bytes, pool, stream) is an overload in cuda_runtime.h that calls this one.
cudaError_t __wrap_cudaMallocFromPoolAsync(void** pointer, size_t bytes, cudaMemPool_t pool, cudaStream_t stream) {
    const cudaError_t result = __real_cudaMallocFromPoolAsync(pointer, bytes, pool, stream);
    workshop::poison_fresh(result, pointer ? *pointer : nullptr, bytes, &stream);
    return workshop::ledger(workshop::kDevice).made(result, pointer, bytes);
}
cudaError_t __wrap_cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent) {
    const cudaError_t result = __real_cudaMalloc3D(pitched, extent);
    if (result != cudaSuccess || !pitched) return result;
    const size_t bytes = pitched->pitch * extent.height * extent.depth;
    workshop::poison_fresh(result, pitched->ptr, bytes);
    return workshop::ledger(workshop::kDevice).made(result, &pitched->ptr, bytes);
}
// A CUDA array (what a texture object may read from) is counted with its texels' bytes as asked for; its layout
// in memory is the driver's and unknown here. A height or depth of 0 means the array has fewer dimensions.
cudaError_t __wrap_cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                                   unsigned int flags) {
    const cudaError_t result = __real_cudaMallocArray(array, desc, width, height, flags);
    return workshop::ledger(workshop::kDevice).made(result, array, workshop::array_bytes(desc, width, height, 0));
}
cudaError_t __wrap_cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                     unsigned int flags) {
    const cudaError_t result = __real_cudaMalloc3DArray(array, desc, extent, flags);
    const size_t bytes = workshop::array_bytes(desc, extent.width, extent.height, extent.depth);
    return workshop::ledger(workshop::kDevice).made(result, array, bytes);
}
cudaError_t __wrap_cudaFreeArray(cudaArray_t array) {
    return workshop::ledger(workshop::kDevice).given_back(__real_cudaFreeArray(array), array);
}
cudaError_t __wrap_cudaFree(void* pointer) {
    const cudaError_t result = __real_cudaFree(pointer);
    workshop::ledger(workshop::kFilledDevice).given_back(result, pointer);
    return workshop::ledger(workshop::kDevice).given_back(result, pointer);
}
cudaError_t __wrap_cudaFreeAsync(void* pointer, cudaStream_t stream) {
    const cudaError_t result = __real_cudaFreeAsync(pointer, stream);
    workshop::ledger(workshop::kFilledDevice).given_back(result, pointer);
    return workshop::ledger(workshop::kDevice).given_back(result, pointer);
}
// In C++, cudaMallocHost(&p, bytes) with a typed pointer is a template of cuda_runtime.h that calls cudaHostAlloc.
cudaError_t __wrap_cudaMallocHost(void** pointer, size_t bytes) {
    const cudaError_t result = __real_cudaMallocHost(pointer, bytes);
    workshop::poison_fresh_host(result, pointer ? *pointer : nullptr, bytes);
    return workshop::ledger(workshop::kPinnedHost).made(result, pointer, bytes);
}
cudaError_t __wrap_cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
    const cudaError_t result = __real_cudaHostAlloc(pointer, bytes, flags);
    workshop::poison_fresh_host(result, pointer ? *pointer : nullptr, bytes);
    return workshop::ledger(workshop::kPinnedHost).made(result, pointer, bytes);
}
cudaError_t __wrap_cudaFreeHost(void* pointer) {
    return workshop::ledger(workshop::kPinnedHost).given_back(__real_cudaFreeHost(pointer), pointer);
}
cudaError_t __wrap_cudaHostRegister(void* pointer, size_t bytes, unsigned int flags) {
    const cudaError_t result = __real_cudaHostRegister(pointer, bytes, flags);
    return workshop::ledger(workshop::kRegisteredHost).made(result, &pointer, bytes);
}
cudaError_t __wrap_cudaHostUnregister(void* pointer) {
    return workshop::ledger(workshop::kRegisteredHost).given_back(__real_cudaHostUnregister(pointer), pointer);
}
cudaError_t __wrap_cudaDeviceReset() {
    const cudaError_t result = __real_cudaDeviceReset();
    workshop::device_was_reset();
    return result;
}
}
