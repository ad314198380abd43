// Matmul track, step 2: coalesce.
//
// The idea: let neighbouring threads touch neighbouring addresses. The kernel below is step 1's solution. Its
// warps run along a row of C, but in column-major storage a row is strided: consecutive elements of a row lie M
// floats apart, so every store to C and every read of B costs a separate 32-byte sector per thread. Map
// threadIdx.x to the row index i instead, so a warp walks down a column, where the addresses are consecutive.
// Follow the TODO(step 2) markers.
//
// Build and run: cd step2 && make run     (your file, timed, beside cuBLAS)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/step_api.cuh"

// One thread per element of C, laid out the way a matrix is drawn on paper: x runs across the columns (j) and
// y down the rows (i). Neighbouring threads of a warp (threadIdx.x + 1) take C(i, j + 1), a whole column
// (M floats) away from C(i, j) in memory.
//
// A grid may be 2^31 - 1 blocks wide (x) but only 65535 tall (y), so a C more than a million rows tall is
// covered by the loop: each thread moves down by the height of the whole grid until it runs out of rows.
//
// TODO(step 2) 1: Swap the roles of x and y in this kernel: take the row from x,
//                 i = blockIdx.x * blockDim.x + threadIdx.x (return if i >= M), and let the loop run over the
//                 columns with y, j from blockIdx.y * blockDim.y + threadIdx.y up to N in steps of
//                 gridDim.y * blockDim.y. The body of the loop does not change.
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
    // TODO(step 2) 2: Make the block 32 x 8 threads, so that x spans exactly one warp (32 rows of one column).
    const dim3 block(16, 16);
    // TODO(step 2) 3: Swap the grid to match: (M - 1) / 32 + 1 blocks along x for the rows, and
    //                 (N - 1) / 8 + 1 blocks along y for the columns, capped at 65535.
    const int blocks_across = (N - 1) / 16 + 1;  // rounds up; (N + 15) / 16 could overflow an int
    const int blocks_down = (M - 1) / 16 + 1;
    const dim3 grid(blocks_across, blocks_down < 65535 ? blocks_down : 65535);
    matmul_element_per_thread<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_element_per_thread, grid, block);
}
