// The harness's own kernels: the copy kernel that sets the bandwidth a transpose can hope for, and the poison.

#include "cuda_check.cuh"
#include "device_kernels.cuh"
#include "matrix_data.hpp"

namespace workshop {

namespace {

// A copy does nothing but stream: every load is 16 bytes, fully coalesced, with several independent loads in
// flight per thread. `__restrict__` tells the compiler in and out never overlap, so it may issue all loads
// before any store. No transpose can move its bytes faster than this.
constexpr int kVectorsPerThread = 4;

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, int64_t vectors) {
    const int64_t first = int64_t{blockIdx.x} * blockDim.x * kVectorsPerThread + threadIdx.x;
    float4 v[kVectorsPerThread];
#pragma unroll
    for (int e = 0; e < kVectorsPerThread; ++e) {
        const int64_t i = first + int64_t{e} * blockDim.x;
        if (i < vectors) v[e] = in[i];
    }
#pragma unroll
    for (int e = 0; e < kVectorsPerThread; ++e) {
        const int64_t i = first + int64_t{e} * blockDim.x;
        if (i < vectors) out[i] = v[e];
    }
}

__global__ void copy_tail_kernel(const float* __restrict__ in, float* __restrict__ out, int64_t begin, int64_t end) {
    const int64_t i = begin + int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
    if (i < end) out[i] = in[i];
}

}  // namespace

LaunchInfo launch_copy(const float* in, float* out, int64_t count) {
    constexpr int kThreads = 256;
    const int64_t vectors = count / 4;  // cudaMalloc'd pointers are 256-byte aligned
    LaunchInfo info{};
    if (vectors > 0) {
        const dim3 grid(static_cast<unsigned>((vectors + kThreads * kVectorsPerThread - 1) / (kThreads * kVectorsPerThread)));
        copy_kernel<<<grid, kThreads>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), vectors);
        CUDA_CHECK_LAUNCH();
        info = launched(copy_kernel, grid, dim3(kThreads));
    }
    if (const int64_t tail = count - vectors * 4; tail > 0) {
        copy_tail_kernel<<<1, 32>>>(in, out, vectors * 4, count);
        CUDA_CHECK_LAUNCH();
    }
    return info;
}

void poison_device(float* device_data, size_t count) {
    CUDA_CHECK(cudaMemset(device_data, 0xFF, count * sizeof(float)));
}

}  // namespace workshop
