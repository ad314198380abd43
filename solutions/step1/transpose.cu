// Transpose track, step 1 (solution): from the CPU to the GPU.
//
// The idea: run the transpose on the GPU. The host code gives the matrix a copy in device memory, launches a
// kernel on it, waits, and copies the result back; the kernel gives every row of the output its own thread.
//
// Build and run: cd step1 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step1/transpose.cu)
#include <cstddef>

#include "step/step_api.cuh"

void transpose_from_host(const float* in, float* out, int rows, int cols) {
    // The GPU cannot work on host memory directly here: it needs buffers of its own, and the data must be
    // copied across the PCIe (or NVLink) link in both directions. That link is far slower than device memory.
    const size_t bytes = static_cast<size_t>(rows) * static_cast<size_t>(cols) * sizeof(float);
    float* d_in = nullptr;
    float* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, bytes));

    CUDA_CHECK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));
    transpose_on_device(d_in, d_out, rows, cols);
    // A launch returns before the kernel has run. Waiting here makes a failing kernel report itself at this
    // line, and keeps the kernel's time out of the copy that follows.
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}

// One thread per row of the output, which is a column of the input: thread c walks down column c of `in` and
// writes it out as row c of `out`. Neighbouring threads read neighbouring addresses, so a warp's load is one
// coalesced 128-byte request; but each thread stores into its own row of `out`, `rows` floats from the next
// thread's, so a warp's store touches 32 different cache lines for 4 useful bytes in each. Worse, this exposes
// only `cols` threads of parallelism: an 8192 x 8192 matrix fills 32 blocks, a small fraction of what a GPU with
// over a hundred SMs can keep resident. (__restrict__ promises that `in` and `out` never overlap, which leaves
// the compiler free to start later loads before earlier stores.)
static __global__ void transpose_row_per_thread(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;  // the last block usually hangs past the end of the output
    for (int r = 0; r < rows; ++r) out[c * rows + r] = in[r * cols + c];
}

LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    constexpr int THREADS = 256;
    const dim3 block(THREADS);
    const dim3 grid((cols - 1) / THREADS + 1);  // rounds up; (cols + THREADS - 1) could overflow an int
    transpose_row_per_thread<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_row_per_thread, grid, block);
}
