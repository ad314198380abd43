// Transpose track, step 5 (solution): more elements per thread.
//
// The idea: a transpose does no arithmetic, so its speed is set by how many bytes it keeps in flight to and
// from DRAM (bandwidth = bytes in flight / latency). Give each thread several elements: a block of 64 x 8
// threads moves a 64 x 64 tile, 8 elements per thread. The unrolled loops give each thread several loads in
// flight at once, the barrier and the index arithmetic are paid once per 8 elements, and every warp's access
// is still one coalesced 128-byte line.
//
// Build and run: cd step5 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step5/transpose.cu)
#include "grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
constexpr int TILE = 64;       // a block moves a TILE x TILE tile: 16 KiB in, 16 KiB out
constexpr int BLOCK_ROWS = 8;  // using TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS elements per thread
static_assert(TILE % 32 == 0, "a warp must cover 32 neighbouring elements of one tile row");
static_assert(TILE % BLOCK_ROWS == 0, "the threads must cover the tile in whole passes");

// Step 4's kernel, with the block sweeping its tile in passes of BLOCK_ROWS rows: pass k covers tile rows
// k .. k + BLOCK_ROWS - 1, that is input rows r0 + k + y on the way in and output rows c0 + k + y on the way
// out. A warp is 32 neighbouring threads of one block row (half of a 64-wide row), so each access it makes
// is one 128-byte line. A padded row is 65 floats; 65 % 32 == 1, so a column read still visits all 32 banks.
static __global__ void transpose_multi_element(const float* __restrict__ in, float* __restrict__ out, int rows,
                                               int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const int r0 = block_row() * TILE, c0 = blockIdx.x * TILE;
    const int x = threadIdx.x, y = threadIdx.y;

    // Unrolled, the passes become independent loads that the compiler issues back to back.
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (r0 + y + k < rows && c0 + x < cols) tile[y + k][x] = in[(r0 + y + k) * cols + (c0 + x)];
    }
    __syncthreads();  // the whole tile must be in before any of it goes out
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (r0 + x < rows && c0 + y + k < cols) out[(c0 + y + k) * rows + (r0 + x)] = tile[x][y + k];
    }
}

// Fewer, fuller blocks: 512 threads each, one per 64 x 64 tile (a quarter as many blocks as step 4).
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid = grid_covering(rows, cols, TILE, TILE);
    transpose_multi_element<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_multi_element, grid, block);
}
