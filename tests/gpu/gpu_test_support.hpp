// GPU tests skip, never pass, where there is no CUDA device, and say why.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "check/shapes.hpp"

#ifndef WORKSHOP_STEP
#define WORKSHOP_STEP 0
#endif

class GpuTest : public ::testing::Test {
protected:
    void SetUp() override {
        int count = 0;
        const cudaError_t error = cudaGetDeviceCount(&count);
        if (error != cudaSuccess || count == 0)
            GTEST_SKIP() << "no CUDA device (cudaGetDeviceCount: "
                         << (error != cudaSuccess ? cudaGetErrorName(error) : "none listed") << ")";
    }
};

template <typename Param>
class GpuTestWithParam : public GpuTest, public ::testing::WithParamInterface<Param> {};

// Test names from shape labels: "s31x33", "s64x96_plus1".
struct ShapeName {
    template <typename Info>
    std::string operator()(const Info& info) const {
        return workshop::test_name(info.param);
    }
};
