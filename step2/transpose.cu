// Transpose track, step 2: express more parallelism.
//
// The idea: step 1 gave each row one thread, so most of the GPU sat idle. Give each element its own thread
// instead, with a 2D grid of 2D blocks laid over the matrix. Follow the TODO(step 2) markers.
//
// Build and run: cd step2 && make run     (your file, timed)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include "step/grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step/step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
// Step 1's kernel, the starting point the TODO below changes. One thread per row of the output, which is a column
// of the input: thread c walks down column c of `in` and writes it out as row c of `out`. Neighbouring threads read
// neighbouring addresses, so a warp's load is one coalesced 128-byte request; but each thread stores into its own
// row of `out`, `rows` floats from the next thread's, so a warp's store touches 32 different cache lines for 4
// useful bytes in each. Worse, this exposes only `cols` threads of parallelism: an 8192 x 8192 matrix fills 32
// blocks, a small fraction of what a GPU with over a hundred SMs can keep resident. (__restrict__ promises that
// `in` and `out` never overlap, which leaves the compiler free to start later loads before earlier stores.)
//
// TODO(step 2) 1: Give every element its own thread: take the column from the x index
//                 (blockIdx.x * blockDim.x + threadIdx.x) and the row from the y index
//                 (block_row() * blockDim.y + threadIdx.y), drop the loop, and copy the one element only if
//                 both indices are inside the matrix. (Renaming the kernel, for instance to
//                 transpose_element_per_thread, keeps the profiler's report readable.)
static __global__ void transpose_row_per_thread(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;  // the last block usually hangs past the end of the output
    for (int r = 0; r < rows; ++r) out[c * rows + r] = in[r * cols + c];
}

LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    // TODO(step 2) 2: Launch 32 x 32-thread blocks, dim3 block(32, 32), on the 2D grid that
    //                 grid_covering(rows, cols, block.y, block.x) returns.
    constexpr int THREADS = 256;
    const dim3 block(THREADS);
    const dim3 grid((cols - 1) / THREADS + 1);  // rounds up; (cols + THREADS - 1) could overflow an int
    transpose_row_per_thread<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_row_per_thread, grid, block);
}
