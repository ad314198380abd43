#include <gtest/gtest.h>

#include <vector>

#include "verify/cpu_reference.hpp"
#include "verify/matrix_data.hpp"

using namespace workshop;

TEST(CpuReference, TransposeMovesEveryElement) {
    const int rows = 37, cols = 70;
    std::vector<float> in(rows * cols), out(rows * cols);
    fill_random(in.data(), in.size(), 5);
    transpose_cpu(in.data(), out.data(), rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]) << r << "," << c;
}

TEST(CpuReference, MatmulMatchesAHandWorkedColumnMajorProduct) {
    // A = [1 2; 3 4] (column-major 1,3,2,4), B = [5 6; 7 8] (5,7,6,8): A*B = [19 22; 43 50].
    const float A[] = {1, 3, 2, 4}, B[] = {5, 7, 6, 8};
    float C[4];
    double D[4];
    matmul_cpu(A, B, C, 2, 2, 2);
    matmul_reference(A, B, D, 2, 2, 2);
    const float expected[] = {19, 43, 22, 50};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(C[i], expected[i]);
        EXPECT_EQ(D[i], expected[i]);
    }
}

TEST(CpuReference, MatmulHandlesRectangles) {
    // M=3, N=1, K=2: A = [1 4; 2 5; 3 6], B = [1; -1] -> C = [-3; -3; -3].
    const float A[] = {1, 2, 3, 4, 5, 6}, B[] = {1, -1};
    float C[3];
    matmul_cpu(A, B, C, 3, 1, 2);
    for (float c : C) EXPECT_EQ(c, -3.0f);
}
