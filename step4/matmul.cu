// Matmul track, step 4: more work per thread.
//
// The idea: in step 3 every multiply-add needs two reads from shared memory, so shared memory, not the
// arithmetic, sets the pace. Give each thread several elements of C along a row (several values of j) and keep
// their sums in registers: per step along k it reads its A(i, k) once and uses it for all of them. With 8 per
// thread, the shared-memory reads per multiply-add drop from 2 to 1 + 1/8. The block tile stays 32 x 32, so a
// block needs only 128 threads, and each copies several elements of each tile. Follow the TODO(step 4) markers.
//
// Build and run: cd step4 && make run     (your file, timed, beside cuBLAS)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/step_api.cuh"

// TODO(step 4) 1: Replace TILE by the new shape, all constexpr int: BM = 32 rows and BN = 32 columns of C per
//                 block (step 3's tile), BK = 32 values of k per shared tile, TN = 8 columns of C per thread,
//                 THREADS = BM * BN / TN (128, a one-dimensional block) and LOADS = BM * BK / THREADS (8, the
//                 elements of each tile one thread copies).
constexpr int TILE = 32;  // a warp's width: one tile column of A or B is one 128-byte line

// One thread per element of C, as in step 2, with a block of 32 x 32 threads per 32 x 32 tile of C.
// TODO(step 4) 2: Add __launch_bounds__(THREADS) between `void` and the kernel's name: it tells the compiler
//                 the block size, so it budgets registers for 128 threads.
static __global__ void matmul_shared_tiles(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
    // TODO(step 4) 3: Size the tiles with the new names (still 32 x 32 each): As[BK][BM] (As[kk][ii] =
    //                 A(row0 + ii, k0 + kk)) and Bs[BN][BK] (Bs[jj][kk] = B(k0 + kk, col0 + jj)).
    __shared__ float As[TILE][TILE];  // As[kk][ii] holds A(row0 + ii, k0 + kk)
    __shared__ float Bs[TILE][TILE];  // Bs[jj][kk] holds B(k0 + kk, col0 + jj)

    // The grid is one-dimensional (2^31 - 1 blocks fit on x; y stops at 65535): block b takes tile row
    // b % tiles_down and tile column b / tiles_down, so consecutive blocks walk down one column of tiles.
    const int tiles_down = (M - 1) / TILE + 1;
    const int row0 = (blockIdx.x % tiles_down) * TILE;
    const int col0 = (blockIdx.x / tiles_down) * TILE;
    // TODO(step 4) 4: Give each thread two roles. Computing: row ii = threadIdx.x % BM of the tile and the TN
    //                 columns starting at jj0 = (threadIdx.x / BM) * TN. Loading: for l = 0 .. LOADS - 1, the
    //                 element e = threadIdx.x + l * THREADS of each tile, A(row0 + e % BM, k0 + e / BM) and
    //                 B(k0 + e % BK, col0 + e / BK), so consecutive threads read consecutive addresses.
    const int tx = threadIdx.x;  // consecutive in a warp: the contiguous direction of A, B and C alike
    const int ty = threadIdx.y;
    const int i = row0 + tx;  // this thread's element of C
    const int j = col0 + ty;

    // TODO(step 4) 5: Replace `sum` by an array of TN sums, float acc[TN] = {}; with only compile-time indices
    //                 (the loops below fully unrolled) the compiler keeps it in registers.
    float sum = 0.0f;
    const int tiles_k = (K - 1) / TILE + 1;  // the last one may be partial; it must not be skipped
    for (int t = 0; t < tiles_k; ++t) {
        const int k0 = t * TILE;
        // Every thread copies one element of each tile. Threads with consecutive tx read consecutive floats:
        // down a column of A, and down a column of B (along k). Past an edge of A or B the tile is padded
        // with zeros, which add nothing to the sums, so the loop below needs no bounds checks.
        // TODO(step 4) 6: Copy with the loading roles of TODO 4, in a loop over l with #pragma unroll, so that
        //                 all the loads are issued before the first one has to arrive (still 0 past an edge).
        As[ty][tx] = (i < M && k0 + ty < K) ? A[i + (k0 + ty) * M] : 0.0f;
        Bs[ty][tx] = (k0 + tx < K && j < N) ? B[(k0 + tx) + j * K] : 0.0f;
        __syncthreads();  // the whole tile is in place before anyone reads it

        // As[kk][tx]: consecutive threads, consecutive banks. Bs[ty][kk]: the same address for the whole
        // warp (ty is constant across a warp), which shared memory serves as one broadcast.
        // TODO(step 4) 7: For each kk < BK, read a = As[kk][ii] once, then for c = 0 .. TN - 1 add
        //                 a * Bs[jj0 + c][kk] to acc[c] (#pragma unroll on both loops).
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk) sum += As[kk][tx] * Bs[ty][kk];
        __syncthreads();  // everyone is done with this tile before the next iteration overwrites it
    }
    // TODO(step 4) 8: Store the TN sums to C(row0 + ii, col0 + jj0 + c), each only if it lies inside C.
    if (i < M && j < N) C[i + j * M] = sum;
}

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 4) 9: Launch THREADS threads per block (one-dimensional), still one block per BM x BN tile of C.
    const dim3 block(TILE, TILE);  // 1024 threads, the most a block may have
    const unsigned tiles_down = (M - 1) / TILE + 1;
    const unsigned tiles_across = (N - 1) / TILE + 1;
    const dim3 grid(tiles_down * tiles_across);
    matmul_shared_tiles<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_shared_tiles, grid, block);
}
