// The harness's own kernels: the copy kernel that sets the bandwidth a transpose can hope for, the poison, and a
// wait on the default stream.

#include "step/cuda_check.cuh"
#include "measure/device_kernels.cuh"
#include "verify/matrix_data.hpp"

namespace workshop {

namespace {

// A copy does nothing but stream: each thread moves one 16-byte float4, every warp access is 512 contiguous
// bytes, and `__restrict__` lets the loads go through the read-only path. No transpose can move its bytes faster
// than this, so the yardstick must be the fastest copy we can write, at least as fast as cudaMemcpy; the variants
// tried were all slower (step5/MEASURED.md). The last count % 4 floats, past the last whole float4, go to the
// threads after the last float4's, one float each, in the same launch: a second launch for them would slow the
// copy at odd sizes, and step 5's share of it there would read too high.
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, int64_t vectors, int tail) {
    const int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < vectors) {
        out[i] = in[i];
    } else if (i < vectors + tail) {
        const int64_t element = 4 * vectors + (i - vectors);
        reinterpret_cast<float*>(out)[element] = reinterpret_cast<const float*>(in)[element];
    }
}

// %globaltimer counts nanoseconds of wall-clock time on every GPU the workshop runs on; one thread sleeping in
// between keeps the rest of the GPU free for the work that runs beside it.
__global__ void hold_kernel(uint64_t nanoseconds) {
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(10000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds);
}

__global__ void shared_memory_fill_kernel(uint32_t bits, int words) {
    extern __shared__ uint32_t shared[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) shared[i] = bits;
}

}  // namespace

// The block size is the one choice that paid, and the best one differs from GPU to GPU, so the harness times the
// kernel with each of kCopyBlockSizes and keeps the faster (transpose_program.cpp; the figures per GPU are in
// step5/MEASURED.md).
LaunchInfo launch_copy(const float* in, float* out, int64_t count, int threads_per_block) {
    if (count <= 0) return LaunchInfo{};
    const int64_t vectors = count / 4;  // cudaMalloc'd pointers are 256-byte aligned
    const int tail = static_cast<int>(count % 4);
    const dim3 grid(static_cast<unsigned>((vectors + tail + threads_per_block - 1) / threads_per_block));
    copy_kernel<<<grid, threads_per_block>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out),
                                             vectors, tail);
    CUDA_CHECK_LAUNCH();
    return launched(copy_kernel, grid, dim3(threads_per_block));
}

void hold_the_default_stream(int64_t microseconds) {
    hold_kernel<<<1, 1>>>(static_cast<uint64_t>(microseconds) * 1000);
    CUDA_CHECK_LAUNCH();
}

// Each block keeps a kilobyte of its SM's shared memory for the system, and where a later kernel's blocks sit
// depends on how much shared memory it asks for: so two launches, with the largest blocks (one per SM) and then
// with blocks of 48 KB, the most a kernel may have without asking; the largest alone left some of a later tile
// unpoisoned (step5/MEASURED.md). In order on the default stream: between two kernels of this program, a kernel
// of another program may use the SMs, and then they hold its values, or zeros.
void fill_shared_memory(uint32_t bits) {
    static const int sms = attribute_of_this_gpu(cudaDevAttrMultiProcessorCount);
    static const int most_bytes = attribute_of_this_gpu(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    constexpr int kWithoutAsking = 48 * 1024;
    if (sms == 0 || most_bytes < kWithoutAsking) return;  // CUDA could not say
    CUDA_CHECK(
        cudaFuncSetAttribute(shared_memory_fill_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most_bytes));
    for (const int bytes : {most_bytes, kWithoutAsking}) {
        const int blocks = 2 * sms * (most_bytes / bytes);  // twice as many as fit at once
        shared_memory_fill_kernel<<<blocks, 1024, bytes>>>(bits, bytes / static_cast<int>(sizeof(uint32_t)));
        CUDA_CHECK_LAUNCH();
    }
}

void poison_device(float* device_data, size_t count) {
    CUDA_CHECK(cudaMemset(device_data, kPoisonByte, count * sizeof(float)));
}

}  // namespace workshop
