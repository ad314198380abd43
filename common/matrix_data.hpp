// Inputs and poison. Inputs are random, reproducible from a seed, and not symmetric, so a transpose that copies
// or an index that swaps i and j shows up. Outputs are poisoned with NaN before every checked run, so a kernel
// that skips elements cannot pass on what an earlier run left behind. The poison is one particular NaN (all
// bits set), which arithmetic never produces: a NaN with other bits was computed by the kernel, not left over.
#pragma once

#include <cstddef>
#include <cstdint>

namespace workshop {

// Value i of stream `seed`, uniform in [-1, 1). A hash rather than a generator so any element can be
// produced on its own and the fill is the same whatever the thread count.
float random_value(uint64_t seed, uint64_t i);

void fill_random(float* data, size_t count, uint64_t seed);
// The poison's bits: every byte 0xFF, so the device can be poisoned with a byte-wise memset.
constexpr uint32_t kPoisonBits = 0xFFFFFFFFu;
bool is_poison(float value);

void fill_poison(float* data, size_t count);

// Device memory, likewise.
void poison_device(float* device_data, size_t count);

}  // namespace workshop
