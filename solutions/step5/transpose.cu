// Transpose track, step 5 (solution): more elements per thread.
//
// The idea: a transpose does no arithmetic, so its speed is set by how many bytes it keeps in flight to and
// from DRAM (bandwidth = bytes in flight / latency). Give each thread several elements: a block of 64 x 8
// threads moves a 64 x 64 tile, 8 elements per thread. The unrolled loops give each thread several loads in
// flight at once, the barrier and the index arithmetic are paid once per 8 elements, and every warp's access
// is still one coalesced 128-byte line. One more, smaller ingredient: the blocks are numbered down the columns
// of tiles (see TileOrder), so that the blocks running at the same time write long stretches of the same
// output rows.
//
// Build and run: cd step5 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step5/transpose.cu)
#include <cstdint>

#include "step_api.cuh"

// ---- Kernel ------------------------------------------------------------------------------------------------
constexpr int TILE = 64;       // a block moves a TILE x TILE tile: 16 KiB in, 16 KiB out
constexpr int BLOCK_ROWS = 8;  // using TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS elements per thread
static_assert(TILE % 32 == 0, "a warp must cover 32 neighbouring elements of one tile row");
static_assert(TILE % BLOCK_ROWS == 0, "the threads must cover the tile in whole passes");

// The order of the tiles. A 2D grid numbers its blocks along x first, and x ran across the columns of tiles, so
// the blocks on the GPU at any moment held a few rows of tiles: they read long stretches of a few input rows,
// but wrote 256-byte pieces into thousands of output rows. Numbering the blocks down the tile columns instead
// turns that round: short pieces of many input rows are read, and each output row is written in one long
// stretch. The bytes are the same; which side is spread out is not, and on the H100 this order was 0.5% faster
// at 8192 x 8192 and 1% faster at 8191 x 8193. A one-dimensional grid gives that order for any matrix (it may
// have 2^31 - 1 blocks); the kernel finds its tile from blockIdx.x, as the matmul kernels of steps 3-5 do.
struct TileOrder {
    unsigned tiles_down;  // tiles in one column of tiles
    __device__ int row() const { return static_cast<int>(blockIdx.x % tiles_down); }
    __device__ int col() const { return static_cast<int>(blockIdx.x / tiles_down); }
};

// Step 4's kernel, with the block sweeping its tile in passes of BLOCK_ROWS rows: pass k covers tile rows
// k .. k + BLOCK_ROWS - 1, that is input rows r0 + k + y on the way in and output rows c0 + k + y on the way
// out. A warp is 32 neighbouring threads of one block row (half of a 64-wide row), so each access it makes
// is one 128-byte line. A padded row is 65 floats; 65 % 32 == 1, so a column read still visits all 32 banks.
static __global__ void transpose_multi_element(const float* __restrict__ in, float* __restrict__ out, int rows,
                                               int cols, TileOrder order) {
    __shared__ float tile[TILE][TILE + 1];
    const int r0 = order.row() * TILE, c0 = order.col() * TILE;
    const int x = threadIdx.x, y = threadIdx.y;

    // Unrolled, the passes become independent loads that the compiler issues back to back.
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (r0 + y + k < rows && c0 + x < cols) tile[y + k][x] = in[(r0 + y + k) * cols + (c0 + x)];
    }
    __syncthreads();  // the whole tile must be in before any of it goes out
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (r0 + x < rows && c0 + y + k < cols) out[(c0 + y + k) * rows + (r0 + x)] = tile[x][y + k];
    }
}

// The odd-size path. When a row of `out` is not a whole number of 128-byte lines (rows % 32 != 0, or `out` itself
// not 128-byte aligned), the kernel above writes each 32-float piece of an output row across two lines: five
// sectors instead of four, two of them partial, and on the H100 that costs a quarter of the speed (8191 x 8193
// ran at 72% of the copy). Reads that straddle lines cost little (the next warp reads the rest from cache);
// writes that straddle lines are what hurts. So this kernel cuts every output row at line boundaries instead
// of at multiples of the tile size: in output row j, the block's piece starts `shift` elements before
// H * tile_row, where `shift` puts the start on a 128-byte boundary. Each output row gets its own shift, so
// the block's tile in the input is a parallelogram: column j of it is input rows [start_j, start_j + H). The
// block loads the H + 32 input rows that contain every column's piece, each thread keeping only the elements
// of its own column's piece, and then every warp writes 32 floats that fill exactly one line. The price is in
// the loads: in the first 32 and the last 32 of those rows, only some lanes of each warp have an element to
// keep. Taller pieces make that a smaller share (a fifth of the lanes idle with H = 128, a third with
// H = 64), and a block as wide as the main kernel's tile reads 256 bytes of each input row instead of 128.
// On the H100 that shape was 1.5-2 points faster at 8191 x 8193 than H = 64 with 32 columns; taller pieces
// than 128 were slower.
namespace odd_size {
constexpr int H = 128;   // input rows per piece (output elements per output row)
constexpr int W = TILE;  // input columns (output rows) per block; the block is W x BLOCK_ROWS threads, as above
static_assert(W % 32 == 0 && H % W == 0, "a warp's 32 floats of an output row must fill one line");
static_assert((H + 32) % BLOCK_ROWS == 0 && W % BLOCK_ROWS == 0, "the block sweeps whole passes");

// How many elements before `first` the 128-byte line that holds it begins: the shift for that output row.
__device__ inline int line_shift(const float* first) {
    return static_cast<int>((reinterpret_cast<std::uintptr_t>(first) / sizeof(float)) % 32);
}
}  // namespace odd_size

static __global__ void transpose_line_aligned_writes(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                     int cols, TileOrder order) {
    using namespace odd_size;
    __shared__ float tile[H + 32][W + 1];  // input rows H * t - 32 .. H * t + H - 1; + 1 column as in step 4
    const int t = order.row(), c0 = order.col() * W;
    const int x = threadIdx.x, y = threadIdx.y;
    const int first_row = H * t - 32;

    // Loading: this thread's column c is output row c; its piece is input rows [start, start + H).
    const int c = c0 + x;
    const int start = H * t - line_shift(out + c * rows + H * t);
#pragma unroll
    for (int k = 0; k < H + 32; k += BLOCK_ROWS) {
        const int r = first_row + y + k;
        if (r >= start && r < start + H && r >= 0 && r < rows && c < cols) tile[y + k][x] = in[r * cols + c];
    }
    __syncthreads();
    // Writing: block row y + k writes output row j from the aligned start of its piece, W floats at a time;
    // each of its warps fills one line.
#pragma unroll
    for (int k = 0; k < W; k += BLOCK_ROWS) {
        const int j = c0 + y + k;
        const int piece = H * t - line_shift(out + j * rows + H * t);
#pragma unroll
        for (int i = 0; i < H; i += W) {
            const int r = piece + i + x;
            if (j < cols && r >= 0 && r < rows) out[j * rows + r] = tile[r - first_row][y + k];
        }
    }
}

// Fewer, fuller blocks for the main kernel: 512 threads each, one per 64 x 64 tile (a quarter as many blocks as
// step 4). Output rows that are not whole 128-byte lines take the odd-size path; the battery has both kinds.
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    const bool rows_are_whole_lines = rows % 32 == 0 && reinterpret_cast<std::uintptr_t>(out) % 128 == 0;
    if (!rows_are_whole_lines) {
        using namespace odd_size;
        const dim3 block(W, BLOCK_ROWS);
        // One more piece per output row than rows / H: the shifted pieces start up to 31 elements early.
        const TileOrder order{(rows + 31 - 1) / H + 1u};
        const dim3 grid(order.tiles_down * ((cols - 1) / W + 1));
        transpose_line_aligned_writes<<<grid, block>>>(in, out, rows, cols, order);
        CUDA_CHECK_LAUNCH();
        return launched(transpose_line_aligned_writes, grid, block);
    }
    const dim3 block(TILE, BLOCK_ROWS);
    const TileOrder order{(rows - 1) / TILE + 1u};
    const dim3 grid(order.tiles_down * ((cols - 1) / TILE + 1));
    transpose_multi_element<<<grid, block>>>(in, out, rows, cols, order);
    CUDA_CHECK_LAUNCH();
    return launched(transpose_multi_element, grid, block);
}
