// Inputs and poison. Inputs are random, reproducible from a seed, and not symmetric, so a transpose that copies
// or an index that swaps i and j shows up. Outputs are poisoned with NaN before every checked run, so a kernel
// that skips elements cannot pass on what an earlier run left behind. The poison is one particular NaN (all
// bits set), which arithmetic never produces: a NaN with other bits was computed by the kernel, not left over.
// Shared memory gets a NaN of its own before each checked launch, and so does the device and pinned host memory
// allocated while a check runs, for the same reason: a transpose moves values bit for bit, so an element that holds
// one of them was stored from a slot of a shared tile that no thread wrote, or from a new buffer that nothing wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace workshop {

// A vector whose elements start uninitialized, for host matrices that fill_random or fill_poison (or a copy from
// the device) overwrite at once. A std::vector<float> of n zeroes writes every fresh page once, on one thread,
// which for the largest matrices takes far longer than the parallel fills that follow (step5/MEASURED.md).
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
    using value_type = T;
    template <typename U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() = default;
    template <typename U>
    UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;  // default-initialized: for a float, left as it is
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using HostMatrix = std::vector<float, UninitializedAllocator<float>>;

// Value i of stream `seed`, uniform in [-1, 1). A hash rather than a generator so any element can be
// produced on its own and the fill is the same whatever the thread count.
float random_value(uint64_t seed, uint64_t i);

void fill_random(float* data, size_t count, uint64_t seed);  // on all of the host's threads
// The poison's bits: every byte 0xFF, so the device can be poisoned with a byte-wise memset.
constexpr int kPoisonByte = 0xFF;
constexpr uint32_t kPoisonBits = 0xFFFFFFFFu;
bool is_poison(float value);
// Shared memory's: a quiet NaN that is neither the poison nor what arithmetic gives (0x7FFFFFFF on the GPU).
constexpr uint32_t kSharedPoisonBits = 0x7FC5A4EDu;
bool is_shared_poison(float value);
// New allocations': a third quiet NaN (allocations.hpp says when memory gets it). is_fresh_poison() looks at the
// upper two bytes only: a copy that stops inside a word (a count in the wrong unit) fills its low bytes and leaves
// the rest as they were (little-endian), still a NaN that neither arithmetic nor an input gives.
constexpr uint32_t kFreshPoisonBits = 0x7FCA110Cu;
bool is_fresh_poison(float value);

void fill_poison(float* data, size_t count);  // on all of the host's threads

// Device memory, likewise.
void poison_device(float* device_data, size_t count);

}  // namespace workshop
