// Matmul track, step 5 (solution): a 2D tile of outputs per thread, 128-bit loads, and a pipeline.
//
// The idea: step 4 reused each A value 8 times from a register, but every B value was still read from shared
// memory once per multiply-add. Give each thread a TM x TN = 8 x 16 tile of C instead: per step along k it reads
// 8 values of A and 16 of B (six 16-byte reads) and does 128 multiply-adds with them, so each value read serves
// 16 multiply-adds on one side and 8 on the other. Around that core, four more ingredients, each explained where
// it appears below: (1) each warp owns a 64 x 64 sub-tile so its shared-memory reads are conflict-free, (2) B is
// stored k-major in shared memory so a thread's columns are contiguous and come as float4s, (3) two
// shared-memory buffers, so the global loads for the next k tile are in flight during the math on this one,
// (4) everything sized at compile time, with __launch_bounds__ so two blocks fit on each SM. A fifth, (5), keeps
// odd sizes fast: an input whose columns do not start 16-byte aligned is first copied into one whose do. A
// sixth, (6), is only the order of the multiply-adds in the core, worth 2% on the H100.
//
// Build and run: cd step5 && make solution   (the same program built from this file)
//                make run / make check       (the same, built from your own step5/matmul.cu)
#include <cstdint>

#include "grid_shape.cuh"  // grid_covering() and block_row(): grids for any matrix size
#include "step_api.cuh"

// ---- The shape of the work ----------------------------------------------------------------------------------
// Block tile 128 x 128 of C with k steps of 8; 4 warps, each with a 64 x 64 warp tile; 8 x 16 per thread. Per k
// step a block loads (128 + 128) * 8 floats = 8 KB from global memory for 128 * 128 * 8 multiply-adds: 32 flop
// per byte, above the FP32 units' appetite even if every byte came from DRAM. The README's table compares this
// shape with the alternatives measured on the H100 (8 x 8 per thread with 256 threads reached 82% of cuBLAS,
// this one 90%). (The anonymous namespace keeps the name private to this file.)
namespace {
struct Config {
    static constexpr int BM = 128, BN = 128, BK = 8;  // block tile of C, and the depth of one k step
    static constexpr int WM = 64, WN = 64;            // warp tile: the part of the block tile one warp owns
    static constexpr int TM = 8, TN = 16;             // thread tile: the outputs one thread keeps in registers
    static constexpr bool DOUBLE_BUFFER = true;       // false: one shared buffer and two barriers per k step
    // (4) 128 sums + 24 operands + staged loads + addresses need over 200 registers (for sm_90 the compiler
    // uses 255, no spills); with 128 threads per block two blocks still fit in an SM's 65536 registers, so one
    // block's math covers the other's barrier waits.
    static constexpr int MIN_BLOCKS = 2;
    static constexpr int THREADS = (BM / WM) * (BN / WN) * 32;  // 128
};
}  // namespace

// VEC_AB: A and B are read as float4s, which needs every column to start 16-byte aligned: a leading dimension
// (lda, ldb: the distance between columns) that is a multiple of 4 and aligned base pointers. VEC_C: C is
// written as float4s, which needs M % 4 == 0 and an aligned C. Without them, a thread still moves the same 4
// neighbouring floats, one at a time: the copy into shared memory and everything after it stay the same.
// OWN_LD: A and B come with leading dimensions of their own (padded copies, see (5)); otherwise lda = M and
// ldb = K, and the compiler, knowing it, reuses the same registers (the separate values cost 5% at 4096).
template <class Cfg, bool VEC_AB, bool VEC_C, bool OWN_LD>
static __global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    matmul_2d_tiles(const float* __restrict__ A, int lda_given, const float* __restrict__ B, int ldb_given,
                    float* __restrict__ C, int M, int N, int K) {
    const int lda = OWN_LD ? lda_given : M, ldb = OWN_LD ? ldb_given : K;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
    constexpr int WM = Cfg::WM, WN = Cfg::WN, TM = Cfg::TM, TN = Cfg::TN;
    constexpr int THREADS = Cfg::THREADS;
    constexpr int LANES_M = WM / TM;  // a warp's 32 lanes form a LANES_M x LANES_N grid over its warp tile
    constexpr int LANES_N = WN / TN;
    constexpr int STAGES = Cfg::DOUBLE_BUFFER ? 2 : 1;
    // (2) B's rows in shared memory are padded by 4 floats. The copy into shared memory writes B transposed,
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
    const int row0 = (blockIdx.x % tiles_down) * BM;
    const int col0 = (blockIdx.x / tiles_down) * BN;

    // (1) Warp tiling. Warp w owns a WM x WN sub-tile; inside it, lane l takes the 4-row groups starting at
    // lane_row + g * 4 * LANES_M and the 4-column groups starting at lane_col + g * 4 * LANES_N. For one
    // float4 read of A the whole warp touches only LANES_M = 8 different float4s (128 contiguous bytes, each
    // broadcast to 4 lanes); for B, LANES_N = 4 different float4s (64 contiguous bytes, each broadcast to 8
    // lanes). Neither read has a bank conflict, and each thread's outputs sit in groups of 4 consecutive rows,
    // ready for float4 stores.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = (warp % (BM / WM)) * WM;
    const int warp_col = (warp / (BM / WM)) * WN;
    const int lane_row = (lane % LANES_M) * 4;
    const int lane_col = (lane / LANES_M) * 4;

    // (3) The next k tile travels global -> registers (fetch) while this one is used, and registers -> shared
    // (stash) after it. Loads past an edge of A or B give zeros, so partial tiles need no other care.
    float4 a_next[A_VECS];
    float4 b_next[B_VECS];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int v = 0; v < A_VECS; ++v) {
            const int e = threadIdx.x + v * THREADS;  // consecutive threads: consecutive float4s down a column
            const int i = row0 + (e % (BM / 4)) * 4, k = k0 + e / (BM / 4);
            if constexpr (VEC_AB) {
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
            if constexpr (VEC_AB) {
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
            // (6) The order of the 128 FMAs: column by column, each b[n] used by 8 FMAs in a row. The sums and
            // the result are the same in either order, but the compiler allocates and schedules the registers
            // differently: on the H100 this order ran 2% faster than row by row (a[m] in 16 FMAs in a row).
#pragma unroll
            for (int n = 0; n < TN; ++n)
#pragma unroll
                for (int m = 0; m < TM; ++m) acc[m][n] = fmaf(a[m], b[n], acc[m][n]);
        }
    };

    const int tiles_k = (K - 1) / BK + 1;  // the last tile may be partial (zero-filled); it is never skipped
    fetch(0);
    stash(0);
    __syncthreads();
    for (int t = 0; t < tiles_k; ++t) {
        if constexpr (Cfg::DOUBLE_BUFFER) {
            // No `if (more)` around fetch and stash: past the last tile they only move zeros, and a branch
            // here would let the compiler sink the loads below compute(), where nothing hides their latency.
            const int s = t & 1;
            fetch((t + 1) * BK);  // issued now, waited for only at stash(): the math hides the latency
            compute(s);
            stash(s ^ 1);     // the other buffer: its last readers passed the barrier one step ago
            __syncthreads();  // one barrier per k step: stash(s ^ 1) is visible, buffer s is free
        } else {
            compute(0);
            if (t + 1 < tiles_k) {  // the same for the whole block, so the barriers inside are safe
                fetch((t + 1) * BK);  // nothing to hide this behind: the warps wait for global memory
                __syncthreads();      // everyone has finished reading the buffer...
                stash(0);
                __syncthreads();      // ...and it holds the next tile
            }
        }
    }

    // Each thread stores its tile: per column, TM / 4 float4s, each 4 consecutive rows. In a warp, the
    // LANES_M = 8 lanes sharing a column write 128 contiguous bytes.
#pragma unroll
    for (int g = 0; g < TM / 4; ++g) {
        const int i = row0 + warp_row + g * 4 * LANES_M + lane_row;
#pragma unroll
        for (int n = 0; n < TN; ++n) {
            const int j = col0 + warp_col + (n / 4) * 4 * LANES_N + lane_col + n % 4;
            if (j >= N) continue;
            if constexpr (VEC_C) {
                if (i < M)
                    *reinterpret_cast<float4*>(C + i + j * M) =
                        make_float4(acc[4 * g + 0][n], acc[4 * g + 1][n], acc[4 * g + 2][n], acc[4 * g + 3][n]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (i + q < M) C[i + q + j * M] = acc[4 * g + q][n];
            }
        }
    }
}

template <bool VEC_AB, bool VEC_C, bool OWN_LD = false>
static LaunchInfo launch(const float* A, int lda, const float* B, int ldb, float* C, int M, int N, int K) {
    const auto kernel = matmul_2d_tiles<Config, VEC_AB, VEC_C, OWN_LD>;
    const unsigned tiles_down = (M - 1) / Config::BM + 1;
    const unsigned tiles_across = (N - 1) / Config::BN + 1;
    const dim3 grid(tiles_down * tiles_across);
    const dim3 block(Config::THREADS);
    kernel<<<grid, block>>>(A, lda, B, ldb, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return launched(kernel, grid, block);
}

// (5) Odd sizes. With M = 4097, column k of A starts k * 4097 floats in: at a different place in a 16-byte
// word each time, so no float4 can be used on A, and the kernel's loads of A take four instructions instead of
// one (on the H100, 67% of cuBLAS instead of 91%). Instead, copy A once into a buffer whose columns are M
// rounded up to 4 floats apart (the extra rows zero) and run the fast kernel on that. The copy reads and
// writes A once, about 1% of the time of the product. B the same when K is odd. C is only written once, at
// the end, so it keeps the scalar stores.
static __global__ void copy_to_padded_columns(const float* __restrict__ src, float* __restrict__ dst, int rows,
                                              int cols, int ld) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = block_row();
    if (i < ld && j < cols) dst[i + j * ld] = i < rows ? src[i + j * rows] : 0.0f;
}

static int round_up_to_4(int n) { return (n + 3) / 4 * 4; }

// One buffer for the padded copies, kept for the life of the program and grown when a larger one is needed.
// nullptr when the device has no room: the caller then falls back to scalar loads.
static float* padding_buffer(size_t floats) {
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

static const float* padded_copy(const float* src, int rows, int cols, float* dst) {
    const int ld = round_up_to_4(rows);
    const dim3 block(256);
    const dim3 grid = grid_covering(cols, ld, 1, 256);
    copy_to_padded_columns<<<grid, block>>>(src, dst, rows, cols, ld);
    CUDA_CHECK_LAUNCH();
    return dst;
}

static bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

LaunchInfo matmul_on_device(const float* A, const float* B, float* C, int M, int N, int K) {
    const bool a_aligned = M % 4 == 0 && aligned16(A), b_aligned = K % 4 == 0 && aligned16(B);
    const bool c_aligned = M % 4 == 0 && aligned16(C);
    if (a_aligned && b_aligned)
        return c_aligned ? launch<true, true>(A, M, B, K, C, M, N, K) : launch<true, false>(A, M, B, K, C, M, N, K);
    const size_t a_floats = a_aligned ? 0 : size_t(round_up_to_4(M)) * K;
    const size_t b_floats = b_aligned ? 0 : size_t(round_up_to_4(K)) * N;
    float* const buffer = padding_buffer(a_floats + b_floats);
    if (!buffer) return launch<false, false>(A, M, B, K, C, M, N, K);
    const float* a = a_aligned ? A : padded_copy(A, M, K, buffer);
    const float* b = b_aligned ? B : padded_copy(B, K, N, buffer + a_floats);
    const int lda = a_aligned ? M : round_up_to_4(M), ldb = b_aligned ? K : round_up_to_4(K);
    return c_aligned ? launch<true, true, true>(a, lda, b, ldb, C, M, N, K)
                     : launch<true, false, true>(a, lda, b, ldb, C, M, N, K);
}
