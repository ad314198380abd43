#include "verify/cpu_reference.hpp"

#include <algorithm>
#include <cstdint>

namespace workshop {

void transpose_cpu(const float* in, float* out, int rows, int cols) {
    // Blocks keep both the rows read and the rows written in cache while a block is moved.
    constexpr int kBlock = 32;
#pragma omp parallel for schedule(static)
    for (int r0 = 0; r0 < rows; r0 += kBlock)
        for (int c0 = 0; c0 < cols; c0 += kBlock)
            for (int r = r0; r < std::min(r0 + kBlock, rows); ++r)
                for (int c = c0; c < std::min(c0 + kBlock, cols); ++c)
                    out[int64_t{c} * rows + r] = in[int64_t{r} * cols + c];
}

namespace {

// Column j of C is a sum of columns of A weighted by column j of B: the innermost loop runs down a column of
// A and of C, contiguous in column-major storage.
template <typename Acc, typename Out>
void matmul_columns(const float* A, const float* B, Out* C, int M, int N, int K) {
#pragma omp parallel for schedule(static)
    for (int j = 0; j < N; ++j) {
        Out* c = C + int64_t{j} * M;
        std::fill(c, c + M, Out{0});
        for (int k = 0; k < K; ++k) {
            const Acc b = B[k + int64_t{j} * K];
            const float* a = A + int64_t{k} * M;
            for (int i = 0; i < M; ++i) c[i] = static_cast<Out>(c[i] + static_cast<Acc>(a[i]) * b);
        }
    }
}

}  // namespace

void matmul_cpu(const float* A, const float* B, float* C, int M, int N, int K) {
    matmul_columns<float, float>(A, B, C, M, N, K);
}

void matmul_reference(const float* A, const float* B, double* C, int M, int N, int K) {
    matmul_columns<double, double>(A, B, C, M, N, K);
}

}  // namespace workshop
