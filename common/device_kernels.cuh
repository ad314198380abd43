// Kernels the harness launches itself.
#pragma once

#include <cstdint>

#include "step_api.cuh"

namespace workshop {

// The block sizes the copy kernel is timed with; the faster sets the ceiling on this GPU (device_kernels.cu says why).
inline constexpr int kCopyBlockSizes[] = {256, 1024};

// out[0, count) = in[0, count): the bandwidth ceiling for the transpose track, measured in the same run.
LaunchInfo launch_copy(const float* in, float* out, int64_t count, int threads_per_block = kCopyBlockSizes[0]);

// Queues a kernel on the default stream that does nothing for `microseconds`: what comes after it on that stream
// waits, and work on other streams that does not wait for it runs first.
void hold_the_default_stream(int64_t microseconds);

}  // namespace workshop
