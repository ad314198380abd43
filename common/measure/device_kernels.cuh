// Kernels the harness launches itself.
#pragma once

#include <cstdint>

#include "step/step_api.cuh"

namespace workshop {

// The block sizes the copy kernel is timed with; the faster sets the ceiling on this GPU (device_kernels.cu says why).
inline constexpr int kCopyBlockSizes[] = {256, 1024};

// out[0, count) = in[0, count): the bandwidth ceiling for the transpose track, measured in the same run.
LaunchInfo launch_copy(const float* in, float* out, int64_t count, int threads_per_block = kCopyBlockSizes[0]);

// Queues a kernel on the default stream that does nothing for `microseconds`: what comes after it on that stream
// waits, and work on other streams that does not wait for it runs first.
void hold_the_default_stream(int64_t microseconds);

// Queues on the default stream kernels that fill the shared memory of every SM with `bits` in every word: the
// poison, for the launch that follows (GuardedMatrix::poison). Shared memory keeps what the kernel before left
// there, and CUDA promises nothing about it: a kernel that reads slots of its tile no thread wrote (B's past K,
// where only A's got zeros) is right while they hold finite values, and wrong the day one holds a NaN, since zero
// times a NaN is a NaN.
void fill_shared_memory(uint32_t bits);

}  // namespace workshop
