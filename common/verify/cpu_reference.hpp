// CPU versions: the baseline row of the results tables and the reference that verifies small matmuls.
#pragma once

namespace workshop {

// out (cols x rows) = transpose of in (rows x cols), in parallel over rows with OpenMP, in cache-sized blocks.
void transpose_cpu(const float* in, float* out, int rows, int cols);

// C = A * B, column-major, float arithmetic, OpenMP over columns of C: the CPU baseline.
void matmul_cpu(const float* A, const float* B, float* C, int M, int N, int K);

// C = A * B, column-major, accumulated in double: the reference small results are checked against.
void matmul_reference(const float* A, const float* B, double* C, int M, int N, int K);

}  // namespace workshop
