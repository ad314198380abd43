// Matmul track, step 3 (solution): tiles in shared memory.
//
// The idea: each element of A and B is read from global memory by many threads (A(i, k) by every thread of
// row i, B(k, j) by every thread of column j). A block of threads that computes a 32 x 32 tile of C needs the
// same 32 rows of A and 32 columns of B for all of its elements, so it copies them into shared memory once, a
// 32 x 32 piece at a time along k ("strip-mining" the k loop), and every thread then reads them from there.
// Each value fetched from global memory is used 32 times instead of once.
//
// Build and run: cd step3 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step3/matmul.cu)
#include "step/step_api.cuh"

constexpr int TILE = 32;  // a warp's width: one tile column of A or B is one 128-byte line

// One thread per element of C, as in step 2, with a block of 32 x 32 threads per 32 x 32 tile of C.
static __global__ void matmul_shared_tiles(const float* __restrict__ A, const float* __restrict__ B,
                                           float* __restrict__ C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];  // As[kk][ii] holds A(row0 + ii, k0 + kk)
    __shared__ float Bs[TILE][TILE];  // Bs[jj][kk] holds B(k0 + kk, col0 + jj)

    // The grid is one-dimensional (2^31 - 1 blocks fit on x; y stops at 65535): block b takes tile row
    // b % tiles_down and tile column b / tiles_down, so consecutive blocks walk down one column of tiles.
    const int tiles_down = (M - 1) / TILE + 1;
    const int row0 = (blockIdx.x % tiles_down) * TILE;
    const int col0 = (blockIdx.x / tiles_down) * TILE;
    const int tx = threadIdx.x;  // consecutive in a warp: the contiguous direction of A, B and C alike
    const int ty = threadIdx.y;
    const int i = row0 + tx;  // this thread's element of C
    const int j = col0 + ty;

    float sum = 0.0f;
    const int tiles_k = (K - 1) / TILE + 1;  // the last one may be partial; it must not be skipped
    for (int t = 0; t < tiles_k; ++t) {
        const int k0 = t * TILE;
        // Every thread copies one element of each tile. Threads with consecutive tx read consecutive floats:
        // down a column of A, and down a column of B (along k). Past an edge of A or B the tile is padded
        // with zeros, which add nothing to the sums, so the loop below needs no bounds checks.
        As[ty][tx] = (i < M && k0 + ty < K) ? A[i + (k0 + ty) * M] : 0.0f;
        Bs[ty][tx] = (k0 + tx < K && j < N) ? B[(k0 + tx) + j * K] : 0.0f;
        __syncthreads();  // the whole tile is in place before anyone reads it

        // As[kk][tx]: consecutive threads, consecutive banks. Bs[ty][kk]: the same address for the whole
        // warp (ty is constant across a warp), which shared memory serves as one broadcast.
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk) sum += As[kk][tx] * Bs[ty][kk];
        __syncthreads();  // everyone is done with this tile before the next iteration overwrites it
    }
    if (i < M && j < N) C[i + j * M] = sum;
}

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    const dim3 block(TILE, TILE);  // 1024 threads, the most a block may have
    const unsigned tiles_down = (M - 1) / TILE + 1;
    const unsigned tiles_across = (N - 1) / TILE + 1;
    const dim3 grid(tiles_down * tiles_across);
    matmul_shared_tiles<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_shared_tiles, grid, block);
}
