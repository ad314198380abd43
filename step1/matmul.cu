// Matmul track, step 1: from the CPU to the GPU.
//
// The idea: move C = A * B onto the GPU. This file starts as the CPU version (OpenMP threads on the host); you
// write the CUDA host calls that give the matrices copies in device memory and bring C back, and a first kernel
// that gives every element of C its own GPU thread. Follow the TODO(step 1) markers in order.
// All three matrices are column-major, as BLAS stores them: A(i, k) is A[i + k * M], B(k, j) is B[k + j * K],
// C(i, j) is C[i + j * M].
//
// Build and run: cd step1 && make run     (your file, timed, with the cost of the copies printed)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include <cstddef>

#include "step/step_api.cuh"

void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 1) 1: Allocate three device buffers with cudaMalloc: M * K floats for A, K * N for B and
    //                 M * N for C (count the bytes in size_t: the products can pass 2^31).
    // TODO(step 1) 2: Copy A and B into their device buffers with cudaMemcpy(..., cudaMemcpyHostToDevice).
    // TODO(step 1) 3: Replace the CPU loops below with a call to matmul_on_device on the three device buffers,
    //                 followed by cudaDeviceSynchronize() so the kernel has finished before anything else.
    // TODO(step 1) 4: Copy the device buffer of C into `C` with cudaMemcpy(..., cudaMemcpyDeviceToHost).
    // TODO(step 1) 5: Free the three device buffers with cudaFree.
    // Wrap every one of these calls in CUDA_CHECK(...), so a failure names the call and the line.

    // The CPU version: OpenMP hands each host thread a band of columns of C. The loops run j, k, i so the
    // innermost loop walks down columns of A and C, which are contiguous in memory.
#pragma omp parallel for
    for (int j = 0; j < N; ++j) {
        for (int i = 0; i < M; ++i) C[i + j * M] = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float b = B[k + j * K];
            for (int i = 0; i < M; ++i) C[i + j * M] += A[i + k * M] * b;
        }
    }
}

// TODO(step 1) 6: Write the first kernel here: a `static __global__` function taking (A, B, C, M, N, K) in
//                 which each thread computes elements C(i, j) as the sum over k of A(i, k) * B(k, j). Take the
//                 column from x, the way a matrix is drawn: j = blockIdx.x * blockDim.x + threadIdx.x, and
//                 return if j >= N (the last blocks overhang the edge of C). Take the row from y, as a loop:
//                     for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < M; i += gridDim.y * blockDim.y)
//                 A grid can only be 65535 blocks tall, so a C of more than a million rows needs the loop; for
//                 every other shape it runs once.

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 1) 7: Launch your kernel with 16 x 16-thread blocks and a 2D grid with enough blocks across
    //                 for N columns and down for M rows (round up, and cap the count down at 65535), call
    //                 CUDA_CHECK_LAUNCH() after it, and return launched(your_kernel, grid, block) instead of the
    //                 empty LaunchInfo below. Then delete the (void) line: it only silences "unused parameter"
    //                 warnings until you get here.
    (void)A, (void)B, (void)C, (void)M, (void)N, (void)K;
    return LaunchInfo{};  // nothing launched yet: the CPU loops above do all the work
}
