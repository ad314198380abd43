#include "unset_shared_tiles.cuh"

namespace workshop {

namespace {

__global__ void fill_shared_memory(uint32_t value, int words) {
    extern __shared__ uint32_t shared[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) shared[i] = value;
}

// The size of a step 3 tile, and like one, set by the launch's defaults: no carve-out asked for.
__global__ void copy_unset_shared_tile(uint32_t* out) {
    __shared__ uint32_t tile[32][32];
    out[blockIdx.x * 1024 + threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}

}  // namespace

void leave_in_shared_memory(uint32_t value) {
    int device = 0, sms = 0, bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    CUDA_CHECK(cudaFuncSetAttribute(fill_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    // The same two sizes as the harness's poison (device_kernels.cu says why).
    for (const int size : {bytes, 48 * 1024}) {
        fill_shared_memory<<<2 * sms * (bytes / size), 1024, size>>>(value, size / 4);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

LaunchInfo copy_unset_shared_tiles(uint32_t* out, int blocks) {
    copy_unset_shared_tile<<<blocks, dim3(32, 32)>>>(out);
    CUDA_CHECK_LAUNCH();
    return launched(copy_unset_shared_tile, dim3(blocks), dim3(32, 32));
}

}  // namespace workshop
