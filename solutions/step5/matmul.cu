// Matmul track, step 5 (solution): a 2D tile of outputs per thread, 128-bit loads, and a pipeline.
//
// The idea: step 4 reused each A value 8 times from a register, but every B value was still read from shared memory
// once per multiply-add. Give each thread a TM x TN = 8 x 16 tile of C instead: per step along k it reads 8 values of A
// and 16 of B (six 16-byte reads) and does 128 multiply-adds with them, so each value read serves 16 multiply-adds on
// one side and 8 on the other. Around that core, four more ingredients, each explained where it appears below: (a) each
// warp owns a 128 x 32 sub-tile so its shared-memory reads are conflict-free, (b) B is stored k-major in shared memory
// so a thread's columns are contiguous and come as float4s, (c) two shared-memory buffers, so the global loads for the
// next k tile are in flight during the math on this one, (d) everything sized at compile time, and 128 threads a block,
// so that two blocks fit in an SM's registers whatever the compiler allocates. A fifth, (e), keeps odd sizes fast:
// matrices whose columns do not start 16-byte aligned are first copied into ones whose do. A sixth, (f), is only the
// order of the multiply-adds in the core: on the H100, 95% of cuBLAS FP32 against 80%. A seventh, (g), is for the last
// wave of blocks (or the only one, in a small product): when it would leave most of the GPU idle, its tiles are split
// along k, and the kernel that adds the parts up starts as they finish. An eighth, (h), is not in this file but in how
// it is built: CMakeLists.txt asks ptxas, which turns the PTX into machine code, for a register-usage level of 3
// instead of 5. The instructions stay the same; their registers and order change, and on the H100 the kernel ran about
// 2% faster (see (f) for why that can matter).
//
// Build and run: cd step5 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step5/matmul.cu)
#include <algorithm>
#include <climits>
#include <cstdint>

#include "step/grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step/step_api.cuh"

// ---- The shape of the work ----------------------------------------------------------------------------------
// Block tile 128 x 128 of C with k steps of 8; 4 warps, each with a 128 x 32 warp tile; 8 x 16 per thread. Per k
// step a block loads (128 + 128) * 8 floats = 8 KB from global memory for 128 * 128 * 8 multiply-adds: 32 flop
// per byte, above the FP32 units' appetite even if every byte came from DRAM. step5/MORE.md's table compares this
// shape with the alternatives measured on the H100 (8 x 8 per thread with 256 threads reached 82% of cuBLAS,
// this one 90%). (The anonymous namespace keeps the name private to this file.)
namespace {
struct Config {
    static constexpr int BM = 128, BN = 128, BK = 8;  // block tile of C, and the depth of one k step
    static constexpr int WM = 128, WN = 32;           // warp tile: the part of the block tile one warp owns
    static constexpr int TM = 8, TN = 16;             // thread tile: the outputs one thread keeps in registers
    static constexpr bool DOUBLE_BUFFER = true;       // false: one shared buffer and two barriers per k step
    // (d) 128 sums + 24 operands + staged loads + addresses need over 200 registers (for sm_90 the compiler
    // uses 255, no spills). What lets two blocks share an SM, so that one block's math covers the other's barrier
    // waits, is the block's size: 128 threads x 255 registers (allocated as 256) is 32768, half of the 65536. So
    // MIN_BLOCKS = 2 in __launch_bounds__ caps nothing here (65536 / (2 x 128) = 256 is above the 255 a thread
    // may have); it states the intent, and would bind with more threads per block.
    static constexpr int MIN_BLOCKS = 2;
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;  // 128
};
}  // namespace

// Where tile `tile` of C begins: the tiles are numbered down the columns of tiles, as in steps 3 and 4. The
// adding kernel of (g) finds a tail tile's place with the same function, so the two cannot disagree.
template <class Cfg>
__device__ inline int2 tile_origin(unsigned tile, int tiles_down) {
    return make_int2((tile % tiles_down) * Cfg::BM, (tile / tiles_down) * Cfg::BN);
}

// VEC: A and B are read as float4s, which needs every column to start 16-byte aligned: M and K multiples of 4
// and aligned base pointers, which (e) below provides. Without them (only when (e) finds no memory for its
// copies), a thread still moves the same 4 neighbouring floats, one at a time: the copy into shared memory and
// everything after it stay the same. C has c_rows rows: M, or fewer when A is a copy padded with zero rows.
// SPLIT: (g) below; the block sums a part of the k range for one tail tile, into its own slot of `work`.
template <class Cfg, bool VEC, bool SPLIT>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    matmul_2d_tiles(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                    int K, int c_rows, float* __restrict__ work, int first_tile, int splits) {
    const int lda = M, ldb = K;  // the leading dimensions: every matrix is stored as it is, with no gaps
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
    constexpr int WM = Cfg::WM, WN = Cfg::WN, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int THREADS = Cfg::THREADS;
    constexpr int LANES_M = WM / TM;  // a warp's 32 lanes form a LANES_M x LANES_N grid over its warp tile
    constexpr int LANES_N = WN / TN;
    constexpr int STAGES = Cfg::DOUBLE_BUFFER ? 2 : 1;
    // (b) B's rows in shared memory are padded by 4 floats. The copy into shared memory writes B transposed,
    // and the padding shifts successive k rows by 4 banks so those scattered 4-byte stores do not pile up in
    // the same bank; 4 keeps every row 16-byte aligned for the float4 reads.
    constexpr int LDB = BN + 4;
    constexpr int A_VECS = BM * BK / 4 / THREADS;  // float4s of A each thread copies per k step
    constexpr int B_VECS = BN * BK / 4 / THREADS;
    static_assert(LANES_M * LANES_N == 32, "a warp tile must be covered by exactly 32 thread tiles");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "thread tiles and k steps come in float4s");
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must cover the block tile");
    static_assert(A_VECS * THREADS * 4 == BM * BK && B_VECS * THREADS * 4 == BN * BK,
                  "every thread copies the same number of float4s");
    static_assert(STAGES * BK * (BM + LDB) * sizeof(float) <= 48 * 1024, "static shared memory is 48 KB at most");

    // As[s][kk][ii] = A(row0 + ii, k0 + kk): A is already contiguous along i, so it is copied as it is.
    // Bs[s][kk][jj] = B(k0 + kk, col0 + jj): B is contiguous along k in memory, stored here along j instead.
    __shared__ __align__(16) float As[STAGES][BK][BM];
    __shared__ __align__(16) float Bs[STAGES][BK][LDB];

    const int tiles_down = (M - 1) / BM + 1;  // one-dimensional grid, as in steps 3 and 4
    const int tiles_k = (K - 1) / BK + 1;     // the last k tile may be partial (zero-filled); it is never skipped
    // (unsigned, as blockIdx.x is: with an int here the compiler allocated the kernel's registers differently,
    // 205 instead of 255, and the kernel measured in (f) is the 255 one)
    unsigned tile = blockIdx.x;
    int t_begin = 0, t_end = tiles_k;
    if constexpr (SPLIT) {  // (g) `splits` blocks per tile, each with its share of the k tiles
        const int per_part = (tiles_k - 1) / splits + 1, part = blockIdx.x % splits;
        tile = first_tile + blockIdx.x / splits;
        t_begin = min(tiles_k, part * per_part), t_end = min(tiles_k, t_begin + per_part);
    }
    const int2 origin = tile_origin<Cfg>(tile, tiles_down);
    const int row0 = origin.x, col0 = origin.y;

    // (a) Warp tiling. Warp w owns a WM x WN sub-tile: all 128 rows of the block tile and a quarter of its
    // columns. Inside it, lane l takes the 4-row groups starting at lane_row + g * 4 * LANES_M and the 4-column
    // groups starting at lane_col + g * 4 * LANES_N. For one float4 read of A the whole warp touches only
    // LANES_M = 16 different float4s (256 contiguous bytes, each broadcast to 2 lanes); for B, LANES_N = 2
    // (32 contiguous bytes, each broadcast to 16 lanes). Neither read has a bank conflict, and each thread's
    // outputs sit in groups of 4 consecutive rows, ready for float4 stores. The more usual 64 x 64 warp tile
    // (lanes 8 x 4) has the same properties and the same instructions; on the H100 this shape ran 1-2% faster
    // at most sizes. As with (f), it is not the instructions that differ but how the GPU gets through them
    // (step5/MORE.md's "Why this shape" has the measurements and the profile).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = (warp % (BM / WM)) * WM;
    const int warp_col = (warp / (BM / WM)) * WN;
    const int lane_row = (lane % LANES_M) * 4;
    const int lane_col = (lane / LANES_M) * 4;

    // (c) The next k tile travels global -> registers (fetch) while this one is used, and registers -> shared
    // (stash) after it. Loads past an edge of A or B give zeros, so partial tiles need no other care.
    float4 a_next[A_VECS];
    float4 b_next[B_VECS];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int v = 0; v < A_VECS; ++v) {
            const int e = threadIdx.x + v * THREADS;  // consecutive threads: consecutive float4s down a column
            const int i = row0 + (e % (BM / 4)) * 4, k = k0 + e / (BM / 4);
            if constexpr (VEC) {
                a_next[v] = (i < M && k < K) ? *reinterpret_cast<const float4*>(A + i + k * lda)
                                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else {
                float x[4];
#pragma unroll
                for (int q = 0; q < 4; ++q) x[q] = (i + q < M && k < K) ? A[i + q + k * lda] : 0.0f;
                a_next[v] = make_float4(x[0], x[1], x[2], x[3]);
            }
        }
#pragma unroll
        for (int v = 0; v < B_VECS; ++v) {
            const int e = threadIdx.x + v * THREADS;  // consecutive threads: consecutive float4s along k
            const int k = k0 + (e % (BK / 4)) * 4, j = col0 + e / (BK / 4);
            if constexpr (VEC) {
                b_next[v] = (k < K && j < N) ? *reinterpret_cast<const float4*>(B + k + j * ldb)
                                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else {
                float x[4];
#pragma unroll
                for (int q = 0; q < 4; ++q) x[q] = (k + q < K && j < N) ? B[k + q + j * ldb] : 0.0f;
                b_next[v] = make_float4(x[0], x[1], x[2], x[3]);
            }
        }
    };
    auto stash = [&](int s) {
#pragma unroll
        for (int v = 0; v < A_VECS; ++v) {
            const int e = threadIdx.x + v * THREADS;
            *reinterpret_cast<float4*>(&As[s][e / (BM / 4)][(e % (BM / 4)) * 4]) = a_next[v];
        }
#pragma unroll
        for (int v = 0; v < B_VECS; ++v) {
            const int e = threadIdx.x + v * THREADS;
            const int kk = (e % (BK / 4)) * 4, jj = e / (BK / 4);
            Bs[s][kk + 0][jj] = b_next[v].x;  // the transpose: four k values go to four rows
            Bs[s][kk + 1][jj] = b_next[v].y;
            Bs[s][kk + 2][jj] = b_next[v].z;
            Bs[s][kk + 3][jj] = b_next[v].w;
        }
    };

    // The core: TM x TN sums in registers. Per kk: TM / 4 + TN / 4 float4 reads, TM * TN multiply-adds.
    float acc[TM][TN] = {};
    auto compute = [&](int s) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
#pragma unroll
            for (int g = 0; g < TM / 4; ++g) {
                const float4 v = *reinterpret_cast<const float4*>(&As[s][kk][warp_row + g * 4 * LANES_M + lane_row]);
                a[4 * g + 0] = v.x, a[4 * g + 1] = v.y, a[4 * g + 2] = v.z, a[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < TN / 4; ++g) {
                const float4 v = *reinterpret_cast<const float4*>(&Bs[s][kk][warp_col + g * 4 * LANES_N + lane_col]);
                b[4 * g + 0] = v.x, b[4 * g + 1] = v.y, b[4 * g + 2] = v.z, b[4 * g + 3] = v.w;
            }
            // (f) The order of the 128 FMAs: column by column, each b[n] used by 8 FMAs in a row. The sums and
            // the result are the same in either order, but the compiler allocates and schedules the registers
            // differently: on the H100 this order ran at 95% of cuBLAS FP32, row by row (a[m] in 16 FMAs in a
            // row) at 80% (with the earlier 64 x 64 warp tiles of (a): 93.5% against 91%).
            // (h), the register-usage level this file is built with, is the same lesson one level down.
#pragma unroll
            for (int n = 0; n < TN; ++n)
#pragma unroll
                for (int m = 0; m < TM; ++m) acc[m][n] = fmaf(a[m], b[n], acc[m][n]);
        }
    };

    fetch(t_begin * BK);
    stash(0);
    __syncthreads();
    for (int t = t_begin; t < t_end; ++t) {
        if constexpr (Cfg::DOUBLE_BUFFER) {
            // No `if (more)` around fetch and stash: past the last tile they only move zeros (or, in a split
            // block, the first tile of the next part, never used), and a branch here would let the compiler
            // sink the loads below compute(), where nothing hides their latency.
            const int s = (t - t_begin) & 1;
            fetch((t + 1) * BK);  // issued now, waited for only at stash(): the math hides the latency
            compute(s);
            stash(s ^ 1);     // the other buffer: its last readers passed the barrier one step ago
            __syncthreads();  // one barrier per k step: stash(s ^ 1) is visible, buffer s is free
        } else {
            compute(0);
            if (t + 1 < t_end) {      // the same for the whole block, so the barriers inside are safe
                fetch((t + 1) * BK);  // nothing to hide this behind: the warps wait for global memory
                __syncthreads();      // everyone has finished reading the buffer...
                stash(0);
                __syncthreads();  // ...and it holds the next tile
            }
        }
    }

    // Each thread stores its tile: per column, TM / 4 float4s, each 4 consecutive rows. In a warp, the
    // LANES_M = 16 lanes sharing a column write 256 contiguous bytes. When C's columns do not start 16-byte
    // aligned (an odd M, or C itself), the same 4 values go as 4 one-float stores: once per block, so C is not
    // worth a padded copy (e). A split block (g) writes its whole partial tile, BM rows deep, into `work`.
    const int ldc = SPLIT ? BM : c_rows, rows = SPLIT ? BM : c_rows, cols = SPLIT ? BN : N;
    const bool c_vec = SPLIT || (ldc % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0);
    float* const c = SPLIT ? work + size_t(blockIdx.x) * BM * BN : C;
    const int r0 = SPLIT ? 0 : row0, c0 = SPLIT ? 0 : col0;
#pragma unroll
    for (int g = 0; g < TM / 4; ++g) {
        const int i = r0 + warp_row + g * 4 * LANES_M + lane_row;
#pragma unroll
        for (int n = 0; n < TN; ++n) {
            const int j = c0 + warp_col + (n / 4) * 4 * LANES_N + lane_col + n % 4;
            if (j >= cols) continue;
            if (VEC && c_vec) {
                if (i < rows)
                    *reinterpret_cast<float4*>(c + i + j * ldc) =
                        make_float4(acc[4 * g + 0][n], acc[4 * g + 1][n], acc[4 * g + 2][n], acc[4 * g + 3][n]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (i + q < rows) c[i + q + j * ldc] = acc[4 * g + q][n];
            }
        }
    }
}

// (g) The tail. The blocks run in waves of (SMs x blocks per SM). When the last wave is short, most SMs wait
// for it, idle, for the time of a whole block: at 4099^3 the 33 x 33 = 1089 tiles are four waves of 264 on an
// H100 and a fifth of 33. So when the last wave would fill at most half of the GPU, its tiles are split along k
// ("split-K"): each becomes `splits` blocks that sum a share of the k tiles into a slot of their own, and a
// small kernel adds the slots up into C. The full waves run first, unchanged; then one short wave fills the GPU.
// A small product is all tail: at 1024^3 the 64 tiles fill a quarter of one wave, and split in four they fill
// it (on the H100, 55% of cuBLAS FP32 before, 99% after).
static __global__ void add_partial_tiles(const float* __restrict__ work, int splits, float* __restrict__ C, int M,
                                         int N, int first_tile, int tiles, int tiles_down) {
    constexpr int BM = Config::BM, BN = Config::BN;
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();  // launched early (split_tail): wait here until every slot is written
#endif
    const int e = blockIdx.x * blockDim.x + threadIdx.x;  // element e % (BM * BN) of tail tile e / (BM * BN)
    if (e >= tiles * BM * BN) return;
    const int t = e / (BM * BN), in_tile = e % (BM * BN);  // tail tile t: tile first_tile + t of the grid
    const int2 origin = tile_origin<Config>(first_tile + t, tiles_down);
    const int i = origin.x + in_tile % BM, j = origin.y + in_tile / BM;
    if (i >= M || j >= N) return;
    const float* part = work + size_t(t) * splits * BM * BN + in_tile;  // the tile's first slot
    float sum = 0.0f;
    for (int p = 0; p < splits; ++p) sum += part[size_t(p) * BM * BN];
    C[i + size_t(j) * M] = sum;
}

// How many blocks of the main kernel run at once on this GPU: one wave, `per_sm` blocks on each of `sms` SMs.
// Asked once (the program uses one device); the other variants of the kernel have the same __launch_bounds__ and
// so the same blocks per SM. All zero when unknown: then nothing is split.
struct Wave {
    int sms = 0, per_sm = 0;
    int blocks() const { return sms * per_sm; }
};
static Wave wave_on_this_gpu() {
    static const Wave wave = [] {
        Wave w;
        w.sms = attribute_of_this_gpu(cudaDevAttrMultiProcessorCount);
        if (w.sms == 0 || cudaOccupancyMaxActiveBlocksPerMultiprocessor(&w.per_sm, matmul_2d_tiles<Config, true, false>,
                                                                        Config::THREADS, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            return Wave{};
        }
        return w;
    }();
    return wave;
}

// The split for a grid of `tiles` tiles: how many tail tiles, and into how many parts each (1: none).
struct TailSplit {
    int tiles = 0, splits = 1;
};
// A part gets at least kMinKTilesPerPart k tiles: a block also pays for filling its pipeline and writing its
// 64 KB slot, which the adding kernel reads back, and with fewer k tiles than this those costs outweigh the math
// (on the H100 at 128 x 128 x 4096, parts of 1 or 2 k tiles read 65-67% of cuBLAS FP32, parts of 4 87%).
constexpr int kMinKTilesPerPart = 4;
// Parts shorter than kShortPart k tiles are mostly those fixed costs, and they go faster one block per SM than
// two: a block that has its SM to itself finishes sooner, and half as many slots are written and added up. So
// short parts are capped at one block per SM (on the H100, 512^3 went from 82% of cuBLAS FP32 to 92-93%, 448^3
// from 78% to 89-90%; where parts are longer, as at 768^3 and 1024^3, two blocks per SM stay faster).
constexpr int kShortPart = 8;
// The smallest products are the exception to kMinKTilesPerPart: when parts that long leave two SMs in three with
// nothing to do (256^3: 4 tiles x 8 parts = 32 blocks for 132 SMs), the whole product is a few microseconds of
// fixed costs and latency, and twice the blocks with half the k tiles each finish sooner (on the H100, 256^3 went
// from 87% of cuBLAS FP32 to 96-98%, 128 x 128 x 512 from 89% to 97-98%; at 128 x 128 x 2048, where parts of 4
// already make 64 blocks, halving them cost 4 points).
static TailSplit tail_split(int tiles, int tiles_k, Wave wave) {
    const int tail = wave.blocks() > 0 ? tiles % wave.blocks() : 0;
    if (tail == 0 || 2 * tail > wave.blocks()) return {};  // the last (or only) wave is full enough
    // As many parts as one wave holds, but none shorter than min_k_tiles (one part when K is shorter still).
    const auto parts_of_at_least = [&](int min_k_tiles) {
        return std::min(wave.blocks() / tail, std::max(1, tiles_k / min_k_tiles));
    };
    int splits = parts_of_at_least(kMinKTilesPerPart);
    if (3 * tail * splits <= wave.sms) splits = parts_of_at_least(kMinKTilesPerPart / 2);
    const int one_block_per_sm = wave.sms / tail;  // the most splits that keep to one block per SM
    if (tiles_k / splits < kShortPart && one_block_per_sm >= 2) splits = std::min(splits, one_block_per_sm);
    return {tail, splits};
}

// Whether this GPU can start a kernel before the one it depends on has finished (compute capability 9.0 on).
static bool has_dependent_launch() {
    static const bool has = attribute_of_this_gpu(cudaDevAttrComputeCapabilityMajor) >= 9;
    return has;
}

// The tail's two launches: `tail.splits` blocks for each of the last `tail.tiles` tiles, then their sums.
// The adding kernel needs every slot, so it must wait for the split kernel; launched the usual way, it waits in the
// stream, and the GPU starts its blocks only after the split kernel has wholly finished. From Hopper (sm_90) on,
// a kernel launched with the "programmatic stream serialization" attribute may start before the kernel ahead of
// it has finished (programmatic dependent launch): its blocks are placed on the SMs as the split blocks exit,
// and each waits at cudaGridDependencySynchronize() until the split kernel's writes are visible. That hides the
// gap between the two kernels, about a microsecond, which a small product feels: on the H100, 256^3 went from
// 97-98% of cuBLAS FP32 to 110%, 192^3 from 82% to 93%, 512^3 from 96-97% to 105% (step5/MORE.md, "The adding kernel
// starts early").
static LaunchInfo split_tail(const float* A, const float* B, float* C, int c_rows, int M, int N, int K, float* work,
                             int first_tile, int tiles_down, TailSplit tail) {
    const auto kernel = matmul_2d_tiles<Config, true, true>;
    const dim3 grid(tail.tiles * tail.splits), block(Config::THREADS);
    kernel<<<grid, block>>>(A, B, C, M, N, K, c_rows, work, first_tile, tail.splits);
    CUDA_CHECK_LAUNCH();

    const int elements = tail.tiles * Config::BM * Config::BN;
    cudaLaunchAttribute early_start{};
    early_start.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early_start.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t adding{};
    adding.gridDim = dim3((elements - 1) / 256 + 1);
    adding.blockDim = dim3(256);
    adding.attrs = &early_start;
    adding.numAttrs = has_dependent_launch() ? 1 : 0;  // before Hopper: an ordinary launch
    // A failed launch is also the last error, which CUDA_CHECK_LAUNCH reports like any other.
    (void)cudaLaunchKernelEx(&adding, add_partial_tiles, static_cast<const float*>(work), tail.splits, C, c_rows, N,
                             first_tile, tail.tiles, tiles_down);
    CUDA_CHECK_LAUNCH();
    return launched(kernel, grid, block);
}

// Launches the kernel over the tiles of C (c_rows x N). `work` has room for a wave of tiles; nullptr (no memory
// for it, or the scalar fallback): no split.
template <bool VEC>
static LaunchInfo launch(const float* A, const float* B, float* C, int c_rows, int M, int N, int K, float* work) {
    const auto kernel = matmul_2d_tiles<Config, VEC, false>;
    const int tiles_down = (M - 1) / Config::BM + 1, tiles = tiles_down * ((N - 1) / Config::BN + 1);
    const int tiles_k = (K - 1) / Config::BK + 1;
    const TailSplit tail = work ? tail_split(tiles, tiles_k, wave_on_this_gpu()) : TailSplit{};
    const int whole = tiles - (tail.splits > 1 ? tail.tiles : 0);  // the tiles that are one block each
    LaunchInfo info;
    if (whole > 0) {
        const dim3 grid(whole), block(Config::THREADS);
        kernel<<<grid, block>>>(A, B, C, M, N, K, c_rows, nullptr, 0, 1);
        CUDA_CHECK_LAUNCH();
        info = launched(kernel, grid, block);
    }
    if (tail.splits > 1) {
        const LaunchInfo split = split_tail(A, B, C, c_rows, M, N, K, work, whole, tiles_down, tail);
        if (whole == 0) info = split;
    }
    return info;  // the model describes the main kernel, or the split one when every tile is split
}

// (e) Odd sizes. With M = 4097, column k of A starts k * 4097 floats in: at a different place in a 16-byte
// word each time, so no float4 can be used on A, and the kernel's loads of A take four instructions instead of
// one (on the H100, 67% of cuBLAS instead of 91%). Instead, when M or K is not a multiple of 4 (or a pointer is
// not 16-byte aligned), the kernel reads aligned copies: A padded to Mp x Kp and B to Kp x N (M and K rounded up
// to 4, the extra rows and columns zero, so they add nothing to the sums), and computes as if M were Mp, writing
// only C's M rows. Each copy reads and writes its matrix once, about 1.5% of the time of the product.
static __global__ void copy_padded(const float* __restrict__ src, int rows, int cols, float* __restrict__ dst,
                                   int dst_rows, int dst_cols) {
    // Four rows per thread, written as one float4 (dst_rows is a multiple of 4): 79% of the DRAM bandwidth on
    // the H100, against 53% with one float per thread.
    const int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4, j = block_row();
    if (i >= dst_rows || j >= dst_cols) return;
    float v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] = i + q < rows && j < cols ? src[i + q + size_t(j) * rows] : 0.0f;
    *reinterpret_cast<float4*>(dst + i + size_t(j) * dst_rows) = make_float4(v[0], v[1], v[2], v[3]);
}

static int round_up_to_4(int n) { return (n + 3) / 4 * 4; }

// One buffer for the padded copies and the split tiles, kept for the life of the program and grown when a
// larger one is needed. nullptr when the device has no room: the caller then does without.
static float* scratch_buffer(size_t floats) {
    static float* buffer = nullptr;
    static size_t capacity = 0;
    if (floats <= capacity) return buffer;
    if (buffer) cudaFree(buffer);
    buffer = nullptr, capacity = 0;
    if (cudaMalloc(&buffer, floats * sizeof(float)) != cudaSuccess) {
        (void)cudaGetLastError();  // a failed allocation is not an error here
        return buffer = nullptr;
    }
    capacity = floats;
    return buffer;
}

// Copies the rows x cols matrix `src` into the larger dst_rows x dst_cols matrix `dst`, padded with zeros.
static void copy(const float* src, int rows, int cols, float* dst, int dst_rows, int dst_cols) {
    const dim3 block(256);
    const dim3 grid = grid_covering(dst_cols, dst_rows / 4, 1, 256);
    copy_padded<<<grid, block>>>(src, rows, cols, dst, dst_rows, dst_cols);
    CUDA_CHECK_LAUNCH();
}

static bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    const int Mp = round_up_to_4(M), Kp = round_up_to_4(K);
    const bool copy_a = Mp != M || Kp != K || !aligned16(A), copy_b = Kp != K || !aligned16(B);
    const size_t a_floats = copy_a ? size_t(Mp) * Kp : 0, b_floats = copy_b ? size_t(Kp) * N : 0;
    const size_t work_floats = size_t(wave_on_this_gpu().blocks()) * Config::BM * Config::BN;
    // The kernel's offsets are ints, as in every step: enough for any matrix the programs take (2^31 - 1 floats
    // at most), but a padded copy can be larger than its matrix. A of 2049 x 1048064 fits; padded to 2052 rows
    // it does not, and `k * lda` would wrap around. Such a shape reads A and B where they are.
    const bool copies_indexable = std::max(a_floats, b_floats) <= size_t(INT_MAX);
    float* const buffer = copies_indexable ? scratch_buffer(a_floats + b_floats + work_floats) : nullptr;
    if (!buffer && (copy_a || copy_b))
        return launch<false>(A, B, C, M, M, N, K, nullptr);  // no room for the copies: one-float loads
    float *const a = buffer, *const b = a + a_floats, *const work = b + b_floats;  // (nullptr: no split)
    if (copy_a) copy(A, M, K, a, Mp, Kp);
    if (copy_b) copy(B, K, N, b, Kp, N);
    return launch<true>(copy_a ? a : A, copy_b ? b : B, C, M, Mp, N, Kp, work);
}
