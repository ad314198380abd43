// One ledger of what the program holds and has not given back, for allocations.hpp and cuda_objects.hpp: each thing
// by its handle (a pointer, or an object's number), with its size in bytes (0 for a thing that is not memory). The
// wrappers of the CUDA runtime's calls write to it, and the checks read what it holds.
#pragma once

#include "ledger/allocations.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace workshop {

class Ledger {
public:
    // Only a call that succeeds counts: freeing or destroying what was never made fails and changes nothing. A null
    // handle (cudaMalloc of 0 bytes may give one) is nothing to count.
    template <typename Handle>
    cudaError_t made(cudaError_t result, const Handle* handle, size_t bytes = 0) {
        if (result == cudaSuccess && handle) add(key(*handle), bytes);
        return result;
    }
    template <typename Handle>
    cudaError_t given_back(cudaError_t result, Handle handle) {
        if (result == cudaSuccess) remove(key(handle));
        return result;
    }

    Allocations held();
    std::vector<std::pair<uintptr_t, size_t>> entries();  // each handle held, with its bytes
    void forget();                                        // cudaDeviceReset took everything

private:
    template <typename Handle>
    static uintptr_t key(Handle handle) {
        if constexpr (std::is_pointer_v<Handle>)
            return reinterpret_cast<uintptr_t>(handle);
        else
            return static_cast<uintptr_t>(handle);
    }
    void add(uintptr_t key, size_t bytes);
    void remove(uintptr_t key);

    std::mutex mutex_;
    std::unordered_map<uintptr_t, size_t> sizes_;
    int64_t bytes_ = 0;
};

}  // namespace workshop
