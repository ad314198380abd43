// Matmul track, step 3: tiles in shared memory.
//
// The idea: every A(i, k) is read by all N threads of row i and every B(k, j) by all M threads of column j, and
// in step 2 each of those reads goes to global memory (caches catch some of them). A block that computes a
// 32 x 32 tile of C needs the same 32 rows of A and 32 columns of B for all its elements: let it copy them into
// shared memory one 32 x 32 piece at a time along k, wait at a barrier, and take every operand from there. Each
// value fetched from global memory is then used 32 times. Follow the TODO(step 3) markers.
//
// Build and run: cd step3 && make run     (your file, timed, beside cuBLAS)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/step_api.cuh"

// TODO(step 3) 1: Define the tile side here: constexpr int TILE = 32 (one warp wide, so one column of a tile of
//                 A or B is a single 128-byte line).

// Same arithmetic as step 1; only the mapping from threads to elements of C changed. The loop now runs over
// columns, because they are the ones on the grid's y side (at most 65535 blocks tall, so a C of more than half
// a million columns takes more than one pass).
static __global__ void matmul_coalesced(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                        int M, int N, int K) {
    // TODO(step 3) 2: Declare two shared tiles, __shared__ float As[TILE][TILE] holding A(row0 + ii, k0 + kk)
    //                 at As[kk][ii], and Bs[TILE][TILE] holding B(k0 + kk, col0 + jj) at Bs[jj][kk].
    // TODO(step 3) 3: Replace the next two lines and the loop over j: with a one-dimensional grid, block b
    //                 takes the tile that starts at row0 = (b % tiles_down) * TILE and col0 = (b / tiles_down) *
    //                 TILE, where tiles_down = (M - 1) / TILE + 1, and the thread takes i = row0 + threadIdx.x,
    //                 j = col0 + threadIdx.y. Do not return early: every thread must reach the barriers below.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    for (int j = blockIdx.y * blockDim.y + threadIdx.y; j < N; j += gridDim.y * blockDim.y) {
        float sum = 0.0f;
        // TODO(step 3) 4: Replace this loop by a loop over the (K - 1) / TILE + 1 tiles along k. In each, the
        //                 thread (tx, ty) copies A(i, k0 + ty) into As[ty][tx] and B(k0 + tx, j) into Bs[ty][tx],
        //                 writing 0 for any element past the edge of A or B; then __syncthreads(); then it adds
        //                 As[kk][tx] * Bs[ty][kk] for kk = 0 .. TILE - 1; then __syncthreads() again before the
        //                 next tile overwrites the ones the others may still be reading.
        for (int k = 0; k < K; ++k) sum += A[i + k * M] * B[k + j * K];
        // TODO(step 3) 5: Store the sum only if i < M and j < N (the tiles at the edges overhang C).
        C[i + j * M] = sum;
    }
}

// 32 x 8 threads: x spans exactly one warp, so each warp covers 32 rows of a single column. (With 16 x 16 a
// warp would cover two half-columns of 64 bytes each: still coalesced, but in half-lines.)
LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    // TODO(step 3) 6: Launch TILE x TILE threads per block and a one-dimensional grid of one block per tile
    //                 of C: ((M - 1) / TILE + 1) * ((N - 1) / TILE + 1) blocks (unsigned, for the product).
    const dim3 block(32, 8);
    const int blocks_down = (M - 1) / 32 + 1;   // blocks along the rows: on x, the side with room
    const int blocks_across = (N - 1) / 8 + 1;  // blocks along the columns: on y, capped at 65535
    const dim3 grid(blocks_down, blocks_across < 65535 ? blocks_across : 65535);
    matmul_coalesced<<<grid, block>>>(A, B, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(matmul_coalesced, grid, block);
}
