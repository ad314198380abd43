// Matmul track, step 2 (solution): coalesce.
//
// The idea: let neighbouring threads touch neighbouring addresses. In column-major storage the contiguous
// direction is down a column (the row index i), so threadIdx.x now picks the row: the 32 threads of a warp
// store 32 consecutive floats of one column of C (one 128-byte line) and read 32 consecutive floats of a column
// of A, while all of them read the same element of B (one broadcast).
//
// Build and run: cd step2 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step2/matmul.cu)
#include "step/step_api.cuh"

// Same arithmetic as step 1; only the mapping from threads to elements of C changed. The loop now runs over
// columns, because they are the ones on the grid's y side (at most 65535 blocks tall, so a C of more than half
// a million columns takes more than one pass).
static __global__ void matmul_coalesced(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                        int M, int N, int K) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    for (int j = blockIdx.y * blockDim.y + threadIdx.y; j < N; j += gridDim.y * blockDim.y) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[i + k * M] * B[k + j * K];
        C[i + j * M] = sum;
    }
}

// 32 x 8 threads: x spans exactly one warp, so each warp covers 32 rows of a single column. (With 16 x 16 a
// warp would cover two half-columns of 64 bytes each: still coalesced, but in half-lines.)
LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 block(32, 8);
    const int blocks_down = (M - 1) / 32 + 1;   // blocks along the rows: on x, the side with room
    const int blocks_across = (N - 1) / 8 + 1;  // blocks along the columns: on y, capped at 65535
    const dim3 grid(blocks_down, blocks_across < 65535 ? blocks_across : 65535);
    matmul_coalesced<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_coalesced, grid, block);
}
