// Transpose track, step 5: more elements per thread.
//
// The idea: step 4 reads and writes coalesced and conflict-free, yet stops short of the copy kernel, because
// each thread has just one load in flight and then waits at the barrier. Let each thread move several
// elements, with unrolled loops whose loads are all issued back to back, so that more bytes are on their way
// from DRAM at any moment. Follow the TODO(step 5) markers in order: after TODO 4 you have the classic
// version (32 x 32 tile, 32 x 8 threads, 4 elements each); TODO 5 widens the tile.
//
// Build and run: cd step5 && make run     (your file, timed)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step/step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
constexpr int TILE = 32;  // one warp spans a tile row, so every global access below is one 128-byte line
// TODO(step 5) 1: Add constexpr int BLOCK_ROWS = 8: the block will be TILE x BLOCK_ROWS threads, so each
//                 thread moves TILE / BLOCK_ROWS elements of its column of the tile.
// TODO(step 5) 5: Once TODOs 1-4 pass `make check`, set TILE to 64 (64 x 8 threads, 8 elements each) and
//                 compare the two with `make run`.

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

    // TODO(step 5) 2: Wrap the load in a loop over k = 0, BLOCK_ROWS, 2 * BLOCK_ROWS, ... below TILE, with
    //                 #pragma unroll in front, that moves row y + k of the tile instead of row y.
    if (r0 + y < rows && c0 + x < cols) tile[y][x] = in[(r0 + y) * cols + (c0 + x)];
    // Each thread is about to write out an element that, in general, another thread loaded: wait until all have.
    __syncthreads();
    // TODO(step 5) 3: Wrap the store the same way: pass k writes row c0 + y + k of the output tile from
    //                 tile[x][y + k].
    if (r0 + x < rows && c0 + y < cols) out[(c0 + y) * rows + (r0 + x)] = tile[x][y];
}

// Same 32 x 32 blocks and grid as step 3: only the shape of the shared array changed.
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    // TODO(step 5) 4: Launch TILE x BLOCK_ROWS threads per block; the grid still has one block per tile.
    const dim3 block(TILE, TILE);
    const dim3 grid = grid_covering(rows, cols, TILE, TILE);
    transpose_padded_tile<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_padded_tile, grid, block);
}
