// Owning handles for device and pinned host memory: freed on every path out, so an early error return leaks
// nothing, and an allocation that does not fit says so in one line.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "step/cuda_check.cuh"

namespace workshop {

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        const cudaError_t error = cudaMalloc(&data_, count * sizeof(T));
        if (error == cudaErrorMemoryAllocation) fail_out_of_memory(count * sizeof(T));
        CUDA_CHECK(error);
    }
    ~DeviceBuffer() { cudaFree(data_); }
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        swap(other);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return data_; }
    size_t count() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    void upload(const T* host) { CUDA_CHECK(cudaMemcpy(data_, host, bytes(), cudaMemcpyHostToDevice)); }
    void download(T* host) const { CUDA_CHECK(cudaMemcpy(host, data_, bytes(), cudaMemcpyDeviceToHost)); }

private:
    void swap(DeviceBuffer& other) {
        std::swap(data_, other.data_);
        std::swap(count_, other.count_);
    }
    T* data_ = nullptr;
    size_t count_ = 0;
};

// Page-locked host memory: the GPU's copy engines read it directly, without the driver staging it first.
template <typename T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t count) : count_(count) { CUDA_CHECK(cudaMallocHost(&data_, count * sizeof(T))); }
    ~PinnedBuffer() { cudaFreeHost(data_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    T* get() const { return data_; }
    size_t count() const { return count_; }

private:
    T* data_ = nullptr;
    size_t count_ = 0;
};

}  // namespace workshop
