// Transpose track, step 1: from the CPU to the GPU.
//
// The idea: move the transpose onto the GPU. This file starts as the CPU version (OpenMP threads on the host);
// you write the CUDA host calls that give the matrix a copy in device memory and bring the result back, and a
// first kernel that gives every row of the output its own GPU thread. Follow the TODO(step 1) markers in order.
//
// Build and run: cd step1 && make run     (your file, timed, with the cost of the copies printed)
//                make check               (your file on the whole battery of shapes)
//                make solution            (the reference solution, to compare with)
#include <cstddef>

#include "step/step_api.cuh"

void transpose_from_host(const float* in, float* out, int rows, int cols) {
    // TODO(step 1) 1: Allocate two device buffers of rows * cols floats with cudaMalloc (count the bytes in
    //                 size_t), one for the input and one for the output.
    // TODO(step 1) 2: Copy `in` into the device input buffer with cudaMemcpy(..., cudaMemcpyHostToDevice).
    // TODO(step 1) 3: Replace the CPU loop below with a call to transpose_on_device on the two device buffers,
    //                 followed by cudaDeviceSynchronize() so the kernel has finished before anything else.
    // TODO(step 1) 4: Copy the device output buffer into `out` with cudaMemcpy(..., cudaMemcpyDeviceToHost).
    // TODO(step 1) 5: Free both device buffers with cudaFree.
    // Wrap every one of these calls in CUDA_CHECK(...), so a failure names the call and the line.

    // The CPU version: OpenMP hands each host thread a band of rows.
#pragma omp parallel for
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    }
}

// TODO(step 1) 6: Write the first kernel here: a `static __global__` function taking (in, out, rows, cols) in
//                 which thread number c = blockIdx.x * blockDim.x + threadIdx.x takes row c of the output
//                 (column c of the input), returns if c is past the last column, and otherwise loops over r,
//                 copying in[r * cols + c] to out[c * rows + r] as the CPU loop does.

LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    // TODO(step 1) 7: Launch your kernel with 256-thread blocks and enough blocks for one thread per output row
    //                 (cols threads, rounded up), call CUDA_CHECK_LAUNCH() after it, and return
    //                 launched(your_kernel, grid, block) instead of the empty LaunchInfo below. Then delete the
    //                 four (void) lines: they only silence "unused parameter" warnings until you get here.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
    return LaunchInfo{};  // nothing launched yet: the CPU loop above does all the work
}
