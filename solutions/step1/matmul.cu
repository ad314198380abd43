// Matmul track, step 1 (solution): from the CPU to the GPU.
//
// The idea: run C = A * B on the GPU. The host code gives A, B and C buffers in device memory, copies the
// inputs over, launches a kernel, waits, and copies C back; the kernel gives every element of C its own thread.
// All three matrices are column-major, as BLAS stores them: A(i, k) is A[i + k * M].
//
// Build and run: cd step1 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step1/matmul.cu)
#include <cstddef>

#include "step/step_api.cuh"

void matmul_from_host(const float* A, const float* B, float* C, int M, int N, int K) {
    // The kernel can only read device memory, so each matrix needs a device copy. The link between host and
    // device is far slower than device memory: for a small matmul the copies cost more than the math.
    const size_t bytes_a = static_cast<size_t>(M) * static_cast<size_t>(K) * sizeof(float);
    const size_t bytes_b = static_cast<size_t>(K) * static_cast<size_t>(N) * sizeof(float);
    const size_t bytes_c = static_cast<size_t>(M) * static_cast<size_t>(N) * sizeof(float);
    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, bytes_a));
    CUDA_CHECK(cudaMalloc(&d_b, bytes_b));
    CUDA_CHECK(cudaMalloc(&d_c, bytes_c));

    CUDA_CHECK(cudaMemcpy(d_a, A, bytes_a, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, B, bytes_b, cudaMemcpyHostToDevice));
    matmul_on_device(d_a, d_b, d_c, M, N, K);
    // The launch returns at once; the kernel runs later. Waiting here makes a kernel that fails report
    // itself on this line rather than on some unrelated call further on.
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(C, d_c, bytes_c, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
}

// One thread per element of C, laid out the way a matrix is drawn on paper: x runs across the columns (j) and
// y down the rows (i). It is correct, and it is slow for a reason step 2 fixes: in column-major storage the
// neighbours of C(i, j) in memory are C(i + 1, j) and C(i - 1, j), but the neighbours of this thread in its
// warp (threadIdx.x + 1) take C(i, j + 1), a whole column (M floats) away. Every store, and every read of B,
// then touches a separate 32-byte sector per thread.
//
// A grid may be 2^31 - 1 blocks wide (x) but only 65535 tall (y), so a C more than a million rows tall is
// covered by the loop: each thread moves down by the height of the whole grid until it runs out of rows.
static __global__ void matmul_element_per_thread(const float* __restrict__ A, const float* __restrict__ B,
                                                 float* __restrict__ C, int M, int N, int K) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= N) return;  // the last column of blocks usually hangs past the right edge of C
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < M; i += gridDim.y * blockDim.y) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[i + k * M] * B[k + j * K];
        C[i + j * M] = sum;
    }
}

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 block(16, 16);
    const int blocks_across = (N - 1) / 16 + 1;  // rounds up; (N + 15) / 16 could overflow an int
    const int blocks_down = (M - 1) / 16 + 1;
    const dim3 grid(blocks_across, blocks_down < 65535 ? blocks_down : 65535);
    matmul_element_per_thread<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_element_per_thread, grid, block);
}
