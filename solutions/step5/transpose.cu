// Transpose track, step 5 (solution): more elements per thread.
//
// The idea: a transpose does no arithmetic, so its speed is set by how many bytes it keeps in flight to and
// from DRAM (bandwidth = bytes in flight / latency). Give each thread several elements: a block of 64 x 8
// threads moves a 64 x 64 tile, 8 elements per thread. The unrolled loops give each thread several loads in
// flight at once, the barrier and the index arithmetic are paid once per 8 elements, and every warp's access
// is still one coalesced 128-byte line. Three more, smaller ingredients, none of them the lesson (step5/MORE.md
// measures each): the blocks are numbered down the columns of tiles (see TileOrder), so that the blocks running
// at the same time write long stretches of the same output rows; the loads ask L2 to keep the input's lines
// until the block has them, when the matrices are larger than L2 (l2_priority); and the tiles inside the matrix
// skip the edge guards.
//
// Build and run: cd step5 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step5/transpose.cu)
#include <cstdint>

#include "step/step_api.cuh"

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

// A priority for the input's lines in L2. Every input line is read once, yet the kernel runs faster when its loads
// ask L2 to evict those lines last: at 8192 x 8192, 96.7-96.8% of the copy without the hint and 97.9-98.0% with
// it on the H100, 97.1-97.2% and 98.4-98.5% on the H200, with the same bytes crossing DRAM (step5/MORE.md, "The last
// ingredients"). Left at evict_last, though, the lines would outlive the kernel: they survive the harness's
// flush of L2, and the next kernel to read the same matrix finds them there and runs faster than it should. So
// once its tile is in shared memory, a warp hands its lines back to L2's normal order, one more request to L2 for
// each line. Only the lines still in L2 when the kernel ends need it, and those are the last ones loaded. So only
// the blocks that load the last L2-size and a quarter of the input hand back (the launcher picks them): on an H200
// the copy kernels run after the kernel then found at most 124 of the input's 8.4 million sectors in L2 (about 180
// thousand with no hand-back, none with it in every block), and the kernel read about half a point more of the copy
// at 8192 x 8192 than with the hand-back in every block; fewer blocks left more lines and gained nothing more. CUDA
// C++ has no intrinsics for either instruction, so each is one line of PTX; both need sm_80 or later, and on Turing
// the loads are plain.
namespace l2_priority {
// A cache policy that marks every line a load touches "evict last" (1.0: all of them).
__device__ inline std::uint64_t evict_last_policy() {
    std::uint64_t policy = 0;
#if __CUDA_ARCH__ >= 800
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
    return policy;
}

__device__ inline float load_evict_last(const float* p, std::uint64_t policy) {
#if __CUDA_ARCH__ >= 800
    float v;
    asm("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(policy));
    return v;
#else
    return *p;
#endif
}

// Back to evict_normal, for the whole 128-byte line that holds p (the instruction takes the line's address).
__device__ inline void make_line_normal(const float* p) {
#if __CUDA_ARCH__ >= 800
    const auto line = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{127};
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(line) : "memory");
#endif
}
}  // namespace l2_priority

// Step 4's kernel, with the block sweeping its tile in passes of BLOCK_ROWS rows: pass k covers tile rows
// k .. k + BLOCK_ROWS - 1, that is input rows r0 + k + y on the way in and output rows c0 + k + y on the way
// out. A warp is 32 neighbouring threads of one block row (half of a 64-wide row), so each access it makes
// is one 128-byte line. A padded row is 65 floats; 65 % 32 == 1, so a column read still visits all 32 banks.
// GUARDED: check every element against the matrix's edges, which only the tiles on the right and bottom need.
// ASK_L2: load with the evict_last priority; hand_back: give the lines back afterwards (l2_priority).
template <bool GUARDED, bool ASK_L2>
__device__ void move_tile(float (&tile)[TILE][TILE + 1], const float* __restrict__ in, float* __restrict__ out,
                          int rows, int cols, int r0, int c0, bool hand_back) {
    const int x = threadIdx.x, y = threadIdx.y;
    const std::uint64_t evict_last = ASK_L2 ? l2_priority::evict_last_policy() : 0;
    // Unrolled, the passes become independent loads that the compiler issues back to back.
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (!GUARDED || (r0 + y + k < rows && c0 + x < cols)) {
            const float* from = &in[(r0 + y + k) * cols + (c0 + x)];
            tile[y + k][x] = ASK_L2 ? l2_priority::load_evict_last(from, evict_last) : *from;
        }
    }
    __syncthreads();  // the whole tile must be in before any of it goes out

    // The loads are done, so the lines go back to evict_normal: lane i < 8 of each warp takes the line of the
    // warp's pass i (this kernel runs only where the input's rows are whole lines, so each pass read one line).
    constexpr int PASSES = TILE / BLOCK_ROWS;
    const int lane = x % 32, warp_c0 = c0 + x - lane;
    if (ASK_L2 && hand_back && lane < PASSES) {
        const int r = r0 + y + lane * BLOCK_ROWS;
        if (!GUARDED || (r < rows && warp_c0 < cols)) l2_priority::make_line_normal(&in[r * cols + warp_c0]);
    }

#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (!GUARDED || (r0 + x < rows && c0 + y + k < cols)) out[(c0 + y + k) * rows + (r0 + x)] = tile[x][y + k];
    }
}

// The tiles wholly inside the matrix, all of them when both sides are multiples of 64, skip the guards. The
// guards change no byte that moves, yet on the H200 the same kernel with guards on every tile read 87.4-87.6% of
// the copy at 8192 x 8192, and 98.4-98.7% without them on the inner tiles (step5/MORE.md, "The last ingredients"). The
// test is the same for every thread of a block, so the whole block takes one branch and one __syncthreads().
// The blocks from first_to_hand_back on give their input lines back to L2's normal order (l2_priority).
template <bool ASK_L2>
static __global__ void transpose_multi_element(const float* __restrict__ in, float* __restrict__ out, int rows,
                                               int cols, TileOrder order, unsigned first_to_hand_back) {
    __shared__ float tile[TILE][TILE + 1];
    const int r0 = order.row() * TILE, c0 = order.col() * TILE;
    const bool hand_back = blockIdx.x >= first_to_hand_back;
    if (r0 + TILE <= rows && c0 + TILE <= cols) {
        move_tile<false, ASK_L2>(tile, in, out, rows, cols, r0, c0, hand_back);
    } else {
        move_tile<true, ASK_L2>(tile, in, out, rows, cols, r0, c0, hand_back);
    }
}

// The odd-size path. When a row of `out` is not a whole number of 128-byte lines (rows % 32 != 0, or `out` itself
// not 128-byte aligned), the kernel above writes each 32-float piece of an output row across two lines: five sectors
// instead of four, two of them partial, and on the H100 that costs a quarter of the speed (8191 x 8193 ran at 72% of
// the copy). Reads that straddle lines cost less (on the H100 about 2%, the next warp reading the rest from cache;
// on the H200 about 6%); writes are what hurts most. So this kernel cuts every output row at line boundaries instead
// of at multiples of the tile: in output row j, the block's piece of PIECE floats starts line_shift (0 to 31)
// elements before r0, the first row of its tile, which puts it on a 128-byte boundary, and each warp's store fills
// exactly one line. Every output row has its own shift, so in the input the block's tile is a parallelogram: its
// column j is the PIECE input rows that start line_shift rows above r0. It still fits an array of PIECE rows: array
// row i holds input row top_row + i (top_row = r0 - 32, above every piece's start) when that row is in the column's
// piece, and otherwise the row PIECE below it, so the rows of a piece that lie past top_row + PIECE wrap round to
// the top of the array. On pass k every thread loads the row of its own column that belongs in array row y + k, so
// no lane of any load is idle; on some passes a warp's loads touch two input rows instead of one, which the cache
// absorbs. (Sweeping the whole band of PIECE + 32 rows instead, each lane keeping only the rows of its own column,
// leaves lanes idle; step5/MORE.md says what that cost, and why PIECE is 128.)
namespace odd_size {
constexpr int PIECE = 128;  // floats per output row piece = input rows per column; 16 loads per thread
static_assert(PIECE % TILE == 0 && PIECE % BLOCK_ROWS == 0, "the block writes whole tiles and loads in whole passes");

// How many elements before out[j * rows + r] the 128-byte line that holds it begins: the shift for output row j.
// The lanes past the last column work this out too, for rows j that do not exist, and at the largest matrices
// j * rows is then past what an int holds: signed overflow, which C++ leaves undefined. Unsigned arithmetic wraps
// instead, by a multiple of 2^32 floats, and that leaves the remainder mod 32 as it was.
__device__ inline int line_shift(const float* out, int j, int rows, int r) {
    const auto first = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(out) / sizeof(float)) +
                       static_cast<unsigned>(j) * static_cast<unsigned>(rows) + static_cast<unsigned>(r);
    return static_cast<int>(first % 32);
}

// A load that asks L2 to fetch the whole aligned 256 bytes around it from DRAM. An input row of 8193 floats
// starts at a different place in a line each time, so most warps' loads take the end of one line and the start
// of the next. As we read the counters, a miss then brings in only part of each line, and the rest comes later,
// in more, smaller DRAM reads, when the warps of the neighbouring blocks ask for it. The .L2::256B prefetch size
// makes each miss one 256-byte read (with it, L2 already held 45% of the sectors asked of it, not 21%). On the
// H100 this kernel went from 91.5-91.9% to 94.4-94.8% of the copy at 8191 x 8193 and 8193 x 8191, side by side,
// reading about the same bytes from DRAM. (The main kernel's warps each read whole lines; there the hint changed
// nothing.) CUDA C++ has no intrinsic for the hint, so it is one line of PTX. The 256-byte size needs sm_80 or
// later; on Turing the load is a plain one.
__device__ inline float load_256B_from_dram(const float* p) {
#if __CUDA_ARCH__ >= 800
    float v;
    asm("ld.global.nc.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
#else
    return *p;
#endif
}
}  // namespace odd_size

static __global__ void transpose_line_aligned_writes(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                     int cols, TileOrder order) {
    using namespace odd_size;
    __shared__ float tile[PIECE][TILE + 1];  // + 1 column, as in step 4
    const int r0 = order.row() * PIECE, c0 = order.col() * TILE;
    const int x = threadIdx.x, y = threadIdx.y;
    const int top_row = r0 - 32;

    // Loading: this thread's column c is output row c; its piece is the PIECE input rows from top_row + first
    // (first, 1 to 32, is also the array row of the piece's first row). All 16 loads go into registers before
    // any of them is stored into the tile. Loaded straight into the tile, as in the main kernel, each value was
    // stored as early as the compiler could place it, and the thread stopped to wait for its first load after
    // issuing 6 of the 16. Staged, all 16 are in flight before the first store, and bytes in flight are what set
    // a transpose's speed (the top of this file). On the H200 the odd sizes went from 93.9-94.2% of the best copy
    // to 94.6-94.9% (MEASURED.md). Rows outside the matrix get zeros, which no store reads.
    const int c = c0 + x;
    const int first = 32 - line_shift(out, c, rows, r0);
    float staged[PIECE / BLOCK_ROWS];
#pragma unroll
    for (int k = 0; k < PIECE; k += BLOCK_ROWS) {
        const int i = y + k;
        const int r = top_row + (i < first ? i + PIECE : i);
        staged[k / BLOCK_ROWS] = (r >= 0 && r < rows && c < cols) ? load_256B_from_dram(&in[r * cols + c]) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < PIECE; k += BLOCK_ROWS) tile[y + k][x] = staged[k / BLOCK_ROWS];
    __syncthreads();
    // Writing: block row y + k writes output row j's piece from its line-aligned start, TILE floats at a time;
    // each warp fills one line.
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const int j = c0 + y + k;
        const int piece_start = r0 - line_shift(out, j, rows, r0);
#pragma unroll
        for (int i = 0; i < PIECE; i += TILE) {
            const int r = piece_start + i + x;
            const unsigned row_in_array = static_cast<unsigned>(r - top_row) % PIECE;  // unsigned: one AND
            if (j < cols && r >= 0 && r < rows) out[j * rows + r] = tile[row_in_array][y + k];
        }
    }
}

// L2's size on this GPU, asked once (the program uses one device); 0 when unknown.
static int l2_bytes_on_this_gpu() {
    static const int bytes = attribute_of_this_gpu(cudaDevAttrL2CacheSize);
    return bytes;
}

// Fewer, fuller blocks for the main kernel: 512 threads each, one per 64 x 64 tile (a quarter as many blocks as
// step 4). Where the rows of `out` or of `in` are not whole 128-byte lines, the odd-size path runs instead: its
// loads carry the prefetch size that makes straddling reads cheaper, so it beats this kernel even where only the
// input's rows are odd (on an H200 95.1% of the best copy against 93.6% at 8192 x 8193, 94.0% against 85.9% at
// 4096 x 4097). The battery has both kinds.
// The L2 priority pays only when the matrix and its transpose do not fit in L2 together. When they do, as at
// 2048 x 2048 on an H100 (32 of its 50 MiB), a run that follows another finds everything in L2 already, and the
// hand-back's extra requests to L2 are what it pays for: 92.4-93.0% of the copy with them, 103.6-103.7% with
// plain loads (step5/MORE.md, "The last ingredients").
LaunchInfo transpose_on_device(const float* in, float* out, int rows, int cols) {
    const dim3 block(TILE, BLOCK_ROWS);
    const bool rows_are_whole_lines = rows % 32 == 0 && reinterpret_cast<std::uintptr_t>(out) % 128 == 0 &&
                                      cols % 32 == 0 && reinterpret_cast<std::uintptr_t>(in) % 128 == 0;
    if (!rows_are_whole_lines) {
        // One more piece per output row than rows / PIECE: the shifted pieces start up to 31 rows early.
        const TileOrder order{(rows + 31 - 1) / odd_size::PIECE + 1u};
        const dim3 grid(order.tiles_down * ((cols - 1) / TILE + 1));
        transpose_line_aligned_writes<<<grid, block>>>(in, out, rows, cols, order);
        CUDA_CHECK_LAUNCH();
        return launched(transpose_line_aligned_writes, grid, block);
    }
    const TileOrder order{(rows - 1) / TILE + 1u};
    const dim3 grid(order.tiles_down * ((cols - 1) / TILE + 1));
    const bool fits_in_l2 = 2 * sizeof(float) * rows * cols <= static_cast<size_t>(l2_bytes_on_this_gpu());
    const auto kernel = fits_in_l2 ? transpose_multi_element<false> : transpose_multi_element<true>;
    // The blocks that load the last L2-size and a quarter of the input hand their lines back. In practice the GPU
    // starts blocks in the order of blockIdx.x (CUDA does not promise it), so these are the last ones (l2_priority).
    // Where L2's size is unknown, all of them do.
    const unsigned blocks_handing_back = 5u * l2_bytes_on_this_gpu() / (4u * TILE * TILE * sizeof(float));
    const unsigned first_to_hand_back =
        blocks_handing_back > 0 && grid.x > blocks_handing_back ? grid.x - blocks_handing_back : 0u;
    kernel<<<grid, block>>>(in, out, rows, cols, order, first_to_hand_back);
    CUDA_CHECK_LAUNCH();
    return launched(kernel, grid, block);
}
