// Matmul track, step 5: a 2D tile of outputs per thread, 128-bit loads, and a pipeline.
//
// The idea: step 4 reuses each A value 8 times from a register, but still reads one B value from shared memory
// for every multiply-add. Give each thread an 8 x 16 tile of C instead: per step along k it reads 8 values of A
// and 16 of B and does 128 multiply-adds with them. Then feed that core well: 16-byte (float4) reads, a warp
// layout without bank conflicts, and a second shared buffer so the next tile's global loads overlap this tile's
// math. The README takes the ingredients one at a time; the TODO(step 5) markers follow the same order, and
// the program stays correct after each one, so measure as you go.
//
// Build and run: cd step5 && make run     (your file, timed, beside cuBLAS)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/step_api.cuh"

// TODO(step 5) 1: Replace these constants by the new shape, kept together in one struct so the kernel can be
//                 a template over it: BM = BN = 128 and BK = 8 (block tile), WM = 128 and WN = 32 (the part
//                 of the block tile one warp owns), TM = 8 and TN = 16 (one thread's tile), THREADS =
//                 (BM / WM) * (BN / WN) * 32 = 128. (A first version without warp tiles works too: 16 x 16
//                 threads, each on the 8 x 8 tile at (8 * (t % 16), 8 * (t / 16)); it reaches less.)
// All compile-time constants: the compiler unrolls the loops over them and keeps acc[] in registers (an array
// indexed by anything it cannot resolve at compile time would go to slow local memory instead).
constexpr int BM = 32;                    // rows of C per block: one per thread along the block's "x"
constexpr int BN = 32;                    // columns of C per block
constexpr int BK = 32;                    // depth of each shared-memory tile along k
constexpr int TN = 8;                     // columns of C per thread, kept in registers
constexpr int THREADS = BM * BN / TN;     // 128
constexpr int LOADS = BM * BK / THREADS;  // elements of each tile that one thread copies: 8
static_assert(LOADS * THREADS == BM * BK && LOADS * THREADS == BK * BN, "the threads copy each tile exactly");

// TODO(step 5) 2: Keep the block at 128 threads and write __launch_bounds__(THREADS, 2). Two blocks per SM let
//                 one block's math cover the other's barrier waits, and at 128 threads they always fit: even at
//                 the 255 registers a thread may have (allocated as 256), a block takes 32768 of the 65536. So
//                 the 2 caps nothing here (65536 / (2 * 128) = 256 > 255): it records the intent, and would bind
//                 if the block grew.
static __global__ void __launch_bounds__(THREADS)
    matmul_row_of_outputs(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                          int K) {
    // TODO(step 5) 3: Store B k-major and padded, Bs[BK][BN + 4] (Bs[kk][jj] = B(k0 + kk, col0 + jj)), so the
    //                 8 columns a thread needs at one kk are contiguous and 16-byte aligned; the 4 extra
    //                 floats per row keep the transposing stores into it free of bank conflicts.
    __shared__ float As[BK][BM];  // As[kk][ii] holds A(row0 + ii, k0 + kk)
    __shared__ float Bs[BN][BK];  // Bs[jj][kk] holds B(k0 + kk, col0 + jj)

    const int tiles_down = (M - 1) / BM + 1;  // one-dimensional grid, as in step 3
    const int row0 = (blockIdx.x % tiles_down) * BM;
    const int col0 = (blockIdx.x / tiles_down) * BN;

    // Computing: thread t owns row t % BM of the tile and the TN columns from (t / BM) * TN. The 32 threads of
    // a warp take 32 consecutive rows and the same columns.
    // TODO(step 5) 4: Give each thread a TM x TN tile inside its warp's WM x WN tile: warp w = threadIdx.x / 32
    //                 starts at row (w % (BM / WM)) * WM and column (w / (BM / WM)) * WN; with the lanes as a
    //                 16 x 2 grid, lane l takes the 4-row groups at (l % 16) * 4 + g * 64 (g = 0, 1) and the
    //                 4-column groups at (l / 16) * 4 + g * 8 (g = 0..3) inside it. A float4 read of A then
    //                 touches only 16 different float4s per warp and one of B only 2: no bank conflicts.
    const int ii = threadIdx.x % BM;
    const int jj0 = (threadIdx.x / BM) * TN;

    // TODO(step 5) 6: Keep TM x TN sums, float acc[TM][TN] = {}.
    float acc[TN] = {};
    const int tiles_k = (K - 1) / BK + 1;
    // TODO(step 5) 8: Double-buffer: declare As and Bs with a leading [2], copy tile 0 before the loop, and in
    //                 iteration t load tile t + 1 from global memory into registers first, then compute on
    //                 buffer t % 2, then store the registers into buffer (t + 1) % 2 and __syncthreads() once.
    for (int t = 0; t < tiles_k; ++t) {
        const int k0 = t * BK;
        // TODO(step 5) 5: Load float4s: per k tile each thread copies BM * BK / 4 / THREADS float4s of A (4
        //                 consecutive rows of one column) and as many of B (4 consecutive k of one column),
        //                 stored to As as a float4 and to Bs as 4 floats down a column. Make the kernel a template
        //                 on bool VEC: float4 global loads only when VEC, 4 separate guarded floats otherwise.
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

        // TODO(step 5) 7: For each kk, read the thread's TM values of A and TN values of B as float4s from
        //                 As[kk][...] and Bs[kk][...] into two small register arrays, then do the TM * TN
        //                 multiply-adds acc[m][n] += a[m] * b[n].
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float a = As[kk][ii];  // one read, used TN times below
                                         // Bs[jj0 + c][kk] is the same address for the whole warp: a broadcast.
#pragma unroll
            for (int c = 0; c < TN; ++c) acc[c] += a * Bs[jj0 + c][kk];
        }
        __syncthreads();
    }

    // TODO(step 5) 9: Store the thread's tile: for each column and each group of 4 rows, one float4 when VEC
    //                 (and the group lies inside C), otherwise 4 guarded floats.
    const int i = row0 + ii;
    if (i >= M) return;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
        const int j = col0 + jj0 + c;
        if (j < N) C[i + j * M] = acc[c];  // a warp stores 32 consecutive floats of column j
    }
}

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 5) 10: Launch VEC = true only when M % 4 == 0, K % 4 == 0 and A, B and C are 16-byte aligned
    //                  (check the pointers' addresses), VEC = false otherwise; THREADS threads per block, one
    //                  block per BM x BN tile of C.
    const dim3 block(THREADS);
    const unsigned tiles_down = (M - 1) / BM + 1;
    const unsigned tiles_across = (N - 1) / BN + 1;
    const dim3 grid(tiles_down * tiles_across);
    matmul_row_of_outputs<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_row_of_outputs, grid, block);
}
