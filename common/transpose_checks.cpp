#include <vector>

#include "device_buffer.cuh"
#include "matrix_data.hpp"
#include "step_checks.hpp"

namespace workshop {

CheckResult check_transpose_on_device(int rows, int cols, uint64_t seed) {
    const size_t n = size_t{static_cast<size_t>(rows)} * cols;
    std::vector<float> in(n), out(n);
    fill_random(in.data(), n, seed);
    DeviceBuffer<float> d_in(n), d_out(n);
    d_in.upload(in.data());
    poison_device(d_out.get(), n);

    CheckResult result;
    result.launch = transpose_on_device(d_in.get(), d_out.get(), rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    d_out.download(out.data());
    result.verdict = verify_transpose(in.data(), out.data(), rows, cols);
    return result;
}

}  // namespace workshop
