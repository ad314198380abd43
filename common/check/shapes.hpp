// The shape battery every kernel must pass: the degenerate (1 x 1, one row, one column), sizes that are not a
// multiple of any tile (primes, 31 / 33 around a warp), rectangles both ways, squares, one large square, and shapes
// whose matrices start 1 to 3 floats past an aligned address (label "+N"), as any pointer a caller passes may: a
// kernel that uses float4 accesses without testing the alignment fails there. One size used where another belongs
// passes every square, and make check says so when only the other shapes fail; so that an edge bug fails a square
// too, there are squares with partial tiles of every step (96 is a multiple of 32 but not of 64, 129 of no tile).
// The matmul's two longest shapes have a side of 2^20, the most the programs take: more than 65535 blocks of 16,
// the most a grid holds on y, so a kernel with that side on y must cap its grid there and loop over the rest.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace workshop {

// The longest side a grid covers in one pass with blocks of 16 threads on y: a grid is at most 65535 blocks tall.
constexpr int kSideOfOneGridHeight = 65535 * 16;

struct TransposeShape {
    int rows, cols;
    int misalign = 0;
    bool equal_sides() const { return rows == cols; }
    bool outgrows_a_grid() const { return std::max(rows, cols) > kSideOfOneGridHeight; }
    std::string label() const {
        return fmt::format("{}x{}{}", rows, cols, misalign ? fmt::format("+{}", misalign) : "");
    }
    // How the shape crosses to a child process: one option, read back by parse_shape (programs/options.hpp).
    std::vector<std::string> args() const { return {"--shape", label()}; }
};

struct MatmulShape {
    int M, N, K;
    int misalign = 0;
    bool equal_sides() const { return M == N && N == K; }
    bool outgrows_a_grid() const { return std::max({M, N, K}) > kSideOfOneGridHeight; }
    std::string label() const {
        return fmt::format("{}x{}x{}{}", M, N, K, misalign ? fmt::format("+{}", misalign) : "");
    }
    std::vector<std::string> args() const { return {"--shape", label()}; }
};

// Test names from shape labels: "s31x33", "s64x96_plus1".
template <typename Shape>
std::string test_name(const Shape& s) {
    std::string name = "s" + s.label();
    if (const auto plus = name.find('+'); plus != std::string::npos) name.replace(plus, 1, "_plus");
    return name;
}

inline const std::vector<TransposeShape>& transpose_battery() {
    static const std::vector<TransposeShape> shapes = {
        {1, 1},       {1, 1000},    {1000, 1}, {31, 33},   {33, 31},     {32, 32},    {64, 96},     {97, 61},
        {1031, 1543}, {1543, 1031}, {96, 96},  {129, 129}, {4096, 4096}, {64, 96, 1}, {128, 64, 2}, {1024, 1024, 3},
    };
    return shapes;
}

// Where compute-sanitizer runs, in one process per tool: small shapes (it is slow), two of them because a kernel
// may take a different path at each. At the first no side is a multiple of any tile or of a 128-byte line, so
// every tile on an edge is partial, and step 5 takes its odd-size kernel. The second has rows of whole lines on
// both sides and whole 64 x 64 tiles beside partial ones: step 5's main kernel runs there (only where the rows
// of both matrices are whole lines), its unguarded inner tiles and its guarded edges, and so does a student's
// fast path for whole tiles, which the first shape has none of.
inline std::vector<TransposeShape> transpose_sanitizer_shapes() { return {{67, 45}, {96, 160}}; }

// Step 1's round trip, once more, with a matrix of more than 2^31 bytes (536,941,583 floats, 2.15 GB): a byte
// count kept in an int turns negative there, and the cudaMalloc or cudaMemcpy it is passed to fails. No shape of
// the battery comes near (the largest is 64 MB), nor does make run's 8192 x 8192 (268 MB).
inline TransposeShape transpose_round_trip_shape() { return {23171, 23173}; }

inline const std::vector<MatmulShape>& matmul_battery() {
    static const std::vector<MatmulShape> shapes = {
        {1, 1, 1},
        {1, 257, 129},
        {257, 1, 129},
        {129, 131, 1},
        {1, 1, 1000},
        {97, 101, 103},
        {101, 103, 97},
        {64, 64, 64},
        {129, 65, 33},
        {255, 257, 259},
        {513, 131, 67},
        {67, 513, 131},
        {129, 129, 129},
        {1024, 1024, 1024},
        {64, 64, 64, 1},
        {128, 96, 32, 2},
        {256, 128, 64, 3},
        {2175, 2176, 203},  // 17 x 17 tiles of 128: a full wave and a short one on many GPUs (step 5 splits it)
        // M and N multiples of 4 and K not, then N and K and not M: float4 loads chosen by the wrong two sizes
        // (N for K, N for M) read B or A misaligned there, and at no other shape; the rest have M and K both
        // multiples of 4, or at most one of the three
        {132, 132, 131},
        {131, 132, 132},
        {1 << 20, 3, 2},
        {5, 1 << 20, 3},  // C's rows on step 1's grid y, its columns on step 2's: capped, looped
    };
    return shapes;
}

// The same for the matmul. Both have 10 k tiles of 8, the last one partial, and step 5 splits them along k. At
// the first, M and K are odd: step 5 reads padded copies of A and B, or a student's kernel its one-float loads.
// At the second they are multiples of 4, so the float4 loads read A and B where they are, and one 128 x 128 tile
// is whole beside partial ones on every side.
inline std::vector<MatmulShape> matmul_sanitizer_shapes() { return {{67, 45, 77}, {132, 133, 76}}; }

// The same for the matmul: B of 16385 x 32768 is 536,903,680 floats (2.15 GB). One row of C, so that the product
// (5.4e8 multiply-adds) takes milliseconds, and 32768 columns, which the starting point's loops share among the
// host's threads.
inline MatmulShape matmul_round_trip_shape() { return {1, 32768, 16385}; }

}  // namespace workshop
