// Transpose track, step 4 (solution): avoid shared-memory bank conflicts.
//
// The idea: pad the tile to 32 x 33. Element (i, j) then sits in bank (33 i + j) % 32 = (i + j) % 32, so
// a warp that reads a column (i = 0..31, j fixed) touches 32 different banks in one pass instead of one bank
// 32 times. Rows stay conflict-free too, and the pad costs 128 bytes per block.
//
// Build and run: cd step4 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step4/transpose.cu)
#include "step/grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step/step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
constexpr int TILE = 32;  // one warp spans a tile row, so every global access below is one 128-byte line

// The block owns the tile whose top-left element is in(r0, c0); it becomes the tile at out(c0, r0).
// Reading: thread (x, y) loads in(r0 + y, c0 + x): a warp reads a piece of an input row.
// Writing: thread (x, y) stores out(c0 + y, r0 + x) = in(r0 + x, c0 + y): a warp writes a piece of an output
// row, and fetches it from a column of the tile. Both global accesses are coalesced, and with the padding the
// column read of the tile is conflict-free as well. The element guards repeat on both sides with the roles of
// x and y swapped, so partial tiles at the right and bottom edges are handled.
static __global__ void transpose_padded_tile(const float* __restrict__ in, float* __restrict__ out, int rows,
                                             int cols) {
    __shared__ float tile[TILE][TILE + 1];  // the extra column is never read or written
    const int r0 = block_row() * TILE, c0 = blockIdx.x * TILE;
    const int x = threadIdx.x, y = threadIdx.y;

    if (r0 + y < rows && c0 + x < cols) tile[y][x] = in[(r0 + y) * cols + (c0 + x)];
    // Each thread is about to write out an element that, in general, another thread loaded: wait until all have.
    __syncthreads();
    if (r0 + x < rows && c0 + y < cols) out[(c0 + y) * rows + (r0 + x)] = tile[x][y];
}

// Same 32 x 32 blocks and grid as step 3: only the shape of the shared array changed.
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    const dim3 block(TILE, TILE);
    const dim3 grid = grid_covering(rows, cols, TILE, TILE);
    transpose_padded_tile<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_padded_tile, grid, block);
}
