// The contract between a step file (stepN/*.cu, solutions/stepN/*.cu) and the harness in common/.
//
// A step file holds the lesson only: its kernels and the function that launches them. The harness
// allocates, fills, poisons, times and verifies around it, and links the same step file into the student's
// program, the tests and the benchmark.
#pragma once

#include <cuda_runtime.h>

#include "step/cuda_check.cuh"

// What the launch function tells the harness about the kernel it launched, so the harness can print the
// performance model (blocks, threads, occupancy, waves). It does not change what ran.
struct LaunchInfo {
    const void* kernel = nullptr;  // nullptr: nothing was launched (only step 1's starting point does this)
    dim3 grid{0, 0, 0};
    dim3 block{0, 0, 0};
    size_t shared_bytes = 0;  // dynamic shared memory passed at launch
};

// One attribute of the GPU in use (cudaDevAttrL2CacheSize, cudaDevAttrMultiProcessorCount, ...), for a launch
// function that adapts to the GPU it runs on. 0 when CUDA cannot say: the caller then falls back to a plain launch.
int attribute_of_this_gpu(cudaDeviceAttr attribute);

// Builds a LaunchInfo from the same values passed to <<<grid, block, shared_bytes>>>.
template <typename... Params>
LaunchInfo launched(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes = 0) {
    return LaunchInfo{reinterpret_cast<const void*>(kernel), grid, block, shared_bytes};
}

// ---- Transpose track ------------------------------------------------------------------------------------
// `in` is rows x cols, row-major (element (r, c) at in[r * cols + c]).
// `out` is cols x rows, row-major (element (c, r) at out[c * rows + r]) and must end up holding in's transpose.
// rows * cols < 2^31, so int indices are safe.

// Device pointers. Launches the kernel (asynchronously: the harness synchronises and checks).
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols);

// Step 1 only: host pointers. Does the CUDA host calls itself (allocate, copy in, launch through
// transpose_on_device, synchronise, copy out, free).
void transpose_from_host(const float* in, float* out, int rows, int cols);

// ---- Matmul track ---------------------------------------------------------------------------------------
// C = A * B, single precision, column-major as BLAS stores matrices: A is M x K (element (i, k) at
// A[i + k * M]), B is K x N (B[k + j * K]), C is M x N (C[i + j * M]). M * K, K * N, M * N < 2^31.

// Device pointers. Launches the kernel (asynchronously: the harness synchronises and checks).
LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K);

// Step 1 only: host pointers, with the CUDA host calls done here.
void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K);
