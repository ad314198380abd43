// Grids that cover any matrix. A grid may be 2^31 - 1 blocks wide (x) but only 65535 tall (y) or deep (z).
// Blocks along the columns go on x and blocks down the rows on y; a matrix more than 65535 blocks tall (two
// million rows and more) has its block rows folded into z layers of 32768. The layer size is a power of two so
// that even the spare blocks of the last layer compute row indices that still fit in an int.
#pragma once

#include <cuda_runtime.h>

// The grid of block_rows x block_cols blocks that covers a rows x cols matrix, rounding up at the edges.
inline dim3 grid_covering(int rows, int cols, int block_rows, int block_cols) {
    const int across = (cols - 1) / block_cols + 1;  // round up, without the overflow of (cols + b - 1)
    const int down = (rows - 1) / block_rows + 1;
    if (down <= 65535) return dim3(across, down, 1);
    return dim3(across, 32768, (down - 1) / 32768 + 1);
}

// The block's row in a grid_covering() grid, with the fold undone. Use it where you would write blockIdx.y.
__device__ inline int block_row() { return blockIdx.z * gridDim.y + blockIdx.y; }
