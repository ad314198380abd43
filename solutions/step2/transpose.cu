// Transpose track, step 2 (solution): express more parallelism.
//
// The idea: one thread per element instead of one per row. A 2D grid of 32 x 32-thread blocks covers the
// matrix, so an 8192 x 8192 transpose launches 64 Mi threads instead of 8 Ki, and every SM gets work.
//
// Build and run: cd step2 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step2/transpose.cu)
#include "step/grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step/step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
// One thread per element. Neighbouring threads of a warp (consecutive threadIdx.x) take neighbouring columns,
// so the warp reads 32 consecutive floats of one input row: one 128-byte line. They write those values down a
// column of `out`, though, 4 bytes to each of 32 rows `rows * 4` bytes apart: 32 separate sectors per store.
static __global__ void transpose_element_per_thread(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                    int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = block_row() * blockDim.y + threadIdx.y;
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
