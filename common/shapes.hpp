// The shape battery every kernel must pass: the degenerate (1 x 1, one row, one column), sizes that are not a
// multiple of any tile (primes, 31 / 33 around a warp), rectangles both ways, and one large square.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

namespace workshop {

struct TransposeShape {
    int rows, cols;
    std::string label() const { return fmt::format("{}x{}", rows, cols); }
};

struct MatmulShape {
    int M, N, K;
    std::string label() const { return fmt::format("{}x{}x{}", M, N, K); }
};

inline const std::vector<TransposeShape>& transpose_battery() {
    static const std::vector<TransposeShape> shapes = {
        {1, 1}, {1, 1000}, {1000, 1}, {31, 33}, {33, 31}, {32, 32}, {64, 96}, {97, 61},
        {1031, 1543}, {1543, 1031}, {4096, 4096},
    };
    return shapes;
}

inline const std::vector<MatmulShape>& matmul_battery() {
    static const std::vector<MatmulShape> shapes = {
        {1, 1, 1},      {1, 257, 129},  {257, 1, 129},  {129, 131, 1},  {1, 1, 1000},   {97, 101, 103},
        {101, 103, 97}, {64, 64, 64},   {129, 65, 33},  {255, 257, 259}, {513, 131, 67}, {67, 513, 131},
        {1024, 1024, 1024},
    };
    return shapes;
}

}  // namespace workshop
