// Transpose track, step 3: coalesce through shared memory.
//
// The idea: step 2 reads rows but writes columns, and a column write scatters every warp over 32 sectors.
// Let a block read a 32 x 32 tile row by row into shared memory, wait at a barrier, and write the tile out
// row by row into its transposed place: then both global accesses are coalesced. Follow the TODO(step 3)
// markers.
//
// Build and run: cd step3 && make run     (your file, timed)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step/step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
// One thread per element. Neighbouring threads of a warp (consecutive threadIdx.x) take neighbouring columns,
// so the warp reads 32 consecutive floats of one input row: one 128-byte line. They write those values down a
// column of `out`, though, 4 bytes to each of 32 rows `rows * 4` bytes apart: 32 separate sectors per store.
static __global__ void transpose_element_per_thread(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                    int cols) {
    // TODO(step 3) 1: Declare a 32 x 32 tile of floats in shared memory (__shared__), one per block.
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = block_row() * blockDim.y + threadIdx.y;
    // TODO(step 3) 2: Store the element this thread reads into tile[threadIdx.y][threadIdx.x] instead of
    //                 writing it to `out`; the read from `in` and its guard stay as they are.
    // TODO(step 3) 3: Call __syncthreads(), so that no thread reads the tile before every thread has filled it.
    //                 Outside the guards: every thread of the block must reach it, those past the edges too.
    // TODO(step 3) 4: Write the tile to the transposed block: the thread with threadIdx (x, y) stores
    //                 out(c0 + y, r0 + x) = tile[x][y], where (r0, c0) is the tile's top-left corner in `in`
    //                 (block_row() * 32, blockIdx.x * 32); guard it with r0 + x < rows && c0 + y < cols.
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// 32 x 32 threads: a full warp along x, and a square block, which is exactly the tile that step 3 stages in
// shared memory. Keeping the same launch there means the only difference you measure is the kernel body.
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    const dim3 block(32, 32);
    const dim3 grid = grid_covering(rows, cols, block.y, block.x);
    transpose_element_per_thread<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_element_per_thread, grid, block);
}
