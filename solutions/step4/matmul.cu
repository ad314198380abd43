// Matmul track, step 4 (solution): more work per thread.
//
// The idea: in step 3 every multiply-add needs two reads from shared memory, so the kernel is limited by how
// fast shared memory answers, not by the arithmetic. Here each thread computes TN = 8 elements of C along a
// row (8 values of j) and keeps their sums in registers. Per step along k it reads its A(i, k) once and uses it
// eight times, so the shared-memory reads per multiply-add drop from 2 to 1 + 1/8. The block tile stays step
// 3's 32 x 32, now computed by 128 threads instead of 1024, so there are as many blocks as in step 3 at every
// size, and each thread copies 8 elements of each tile, all of them in flight together.
//
// Build and run: cd step4 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step4/matmul.cu)
#include "step/step_api.cuh"

// All compile-time constants: the compiler unrolls the loops over them and keeps acc[] in registers (an array
// indexed by anything it cannot resolve at compile time would go to slow local memory instead).
constexpr int BM = 32;                    // rows of C per block: one per thread along the block's "x"
constexpr int BN = 32;                    // columns of C per block
constexpr int BK = 32;                    // depth of each shared-memory tile along k
constexpr int TN = 8;                     // columns of C per thread, kept in registers
constexpr int THREADS = BM * BN / TN;     // 128
constexpr int LOADS = BM * BK / THREADS;  // elements of each tile that one thread copies: 8
static_assert(LOADS * THREADS == BM * BK && LOADS * THREADS == BK * BN, "the threads copy each tile exactly");

static __global__ void __launch_bounds__(THREADS)
    matmul_row_of_outputs(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                          int K) {
    __shared__ float As[BK][BM];  // As[kk][ii] holds A(row0 + ii, k0 + kk)
    __shared__ float Bs[BN][BK];  // Bs[jj][kk] holds B(k0 + kk, col0 + jj)

    const int tiles_down = (M - 1) / BM + 1;  // one-dimensional grid, as in step 3
    const int row0 = (blockIdx.x % tiles_down) * BM;
    const int col0 = (blockIdx.x / tiles_down) * BN;

    // Computing: thread t owns row t % BM of the tile and the TN columns from (t / BM) * TN. The 32 threads of
    // a warp take 32 consecutive rows and the same columns.
    const int ii = threadIdx.x % BM;
    const int jj0 = (threadIdx.x / BM) * TN;

    float acc[TN] = {};
    const int tiles_k = (K - 1) / BK + 1;
    for (int t = 0; t < tiles_k; ++t) {
        const int k0 = t * BK;
        // Loading: element e = threadIdx.x + l * THREADS of each tile, for l = 0 .. LOADS - 1. Consecutive
        // threads read consecutive floats of A (down a column) and of B (along k): one 128-byte line per warp.
        // The loop is unrolled, so all 16 loads are issued before the first one has to arrive.
#pragma unroll
        for (int l = 0; l < LOADS; ++l) {
            const int e = threadIdx.x + l * THREADS;
            const int a_row = e % BM, a_k = e / BM, a_i = row0 + a_row, a_kk = k0 + a_k;
            const int b_k = e % BK, b_col = e / BK, b_kk = k0 + b_k, b_j = col0 + b_col;
            As[a_k][a_row] = (a_i < M && a_kk < K) ? A[a_i + a_kk * M] : 0.0f;
            Bs[b_col][b_k] = (b_kk < K && b_j < N) ? B[b_kk + b_j * K] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float a = As[kk][ii];  // one read, used TN times below
                                         // Bs[jj0 + c][kk] is the same address for the whole warp: a broadcast.
#pragma unroll
            for (int c = 0; c < TN; ++c) acc[c] += a * Bs[jj0 + c][kk];
        }
        __syncthreads();
    }

    const int i = row0 + ii;
    if (i >= M) return;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
        const int j = col0 + jj0 + c;
        if (j < N) C[i + j * M] = acc[c];  // a warp stores 32 consecutive floats of column j
    }
}

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 block(THREADS);
    const unsigned tiles_down = (M - 1) / BM + 1;
    const unsigned tiles_across = (N - 1) / BN + 1;
    const dim3 grid(tiles_down * tiles_across);
    matmul_row_of_outputs<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_row_of_outputs, grid, block);
}
