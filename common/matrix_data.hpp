// Inputs and poison. Inputs are random, reproducible from a seed, and not symmetric, so a transpose that copies
// or an index that swaps i and j shows up. Outputs are poisoned with NaN before every checked run, so a kernel
// that skips elements cannot pass on what an earlier run left behind.
#pragma once

#include <cstddef>
#include <cstdint>

namespace workshop {

// Value i of stream `seed`, uniform in [-1, 1). A hash rather than a generator so any element can be
// produced on its own and the fill is the same whatever the thread count.
float random_value(uint64_t seed, uint64_t i);

void fill_random(float* data, size_t count, uint64_t seed);
void fill_nan(float* data, size_t count);

// Device memory: every byte 0xFF, which reads back as a quiet NaN in float.
void poison_device(float* device_data, size_t count);

}  // namespace workshop
