// A deliberately broken step file: a shared-memory transpose with its barrier left out. Threads read tile
// entries that other warps may not have written yet. racecheck must report it; the test fails if it does not.
#include "step_api.cuh"

namespace {

constexpr int kTile = 32;

__global__ void tile_transpose_without_barrier(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
    if (row < rows && col < cols) tile[ty][tx] = in[row * cols + col];
    // The missing __syncthreads() belongs here.
    const int out_row = blockIdx.x * kTile + ty, out_col = blockIdx.y * kTile + tx;
    if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[tx][ty];
}

}  // namespace

LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    const dim3 block(kTile, kTile), grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
    tile_transpose_without_barrier<<<grid, block>>>(in, out, rows, cols);
    CUDA_CHECK_LAUNCH();
    return launched(tile_transpose_without_barrier, grid, block);
}
