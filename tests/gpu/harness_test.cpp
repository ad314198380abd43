// The harness's own GPU pieces: device facts, poison, the copy kernel, timing, cuBLAS references.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ledger/allocations.hpp"
#include "check/checked_launch.hpp"
#include "measure/cublas_reference.hpp"
#include "ledger/cuda_objects.hpp"
#include "step/device_buffer.cuh"
#include "measure/device_info.hpp"
#include "measure/device_kernels.cuh"
#include "gpu_test_support.hpp"
#include "check/guarded_matrix.hpp"
#include "verify/matrix_data.hpp"
#include "programs/program_support.hpp"
#include "step/step_api.cuh"
#include "verify/cpu_reference.hpp"
#include "measure/timing.hpp"
#include "unset_shared_tiles.cuh"
#include "verify/verify.hpp"

using namespace workshop;

using Harness = GpuTest;

TEST_F(Harness, DeviceFactsAreSane) {
    const DeviceFacts d = require_device();
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.l2_bytes, 0);
    EXPECT_GT(d.dram_gbps, 100.0);
    EXPECT_GT(d.fp32_gflops, 1000.0);
    EXPECT_GT(d.free_bytes, 0u);
}

// What the step 5 solutions size their launches by: the same values as the device facts, and 0, with no error left
// behind for the next launch check to find, when CUDA cannot answer.
TEST_F(Harness, AttributeOfThisGpuAgreesWithTheDeviceFacts) {
    const DeviceFacts d = require_device();
    EXPECT_EQ(attribute_of_this_gpu(cudaDevAttrMultiProcessorCount), d.sm_count);
    EXPECT_EQ(attribute_of_this_gpu(cudaDevAttrL2CacheSize), d.l2_bytes);
    EXPECT_EQ(attribute_of_this_gpu(cudaDevAttrComputeCapabilityMajor), d.cc_major);
    EXPECT_EQ(attribute_of_this_gpu(static_cast<cudaDeviceAttr>(-1)), 0);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(Harness, PoisonReadsBackAsNaN) {
    DeviceBuffer<float> d(1000);
    poison_device(d.get(), d.count());
    std::vector<float> h(1000, 0.0f);
    d.download(h.data());
    for (float x : h) ASSERT_TRUE(std::isnan(x));
}

// Compared through one small buffer, piece by piece: a change in the first piece, at the seam and in the last piece
// are each counted once, and the canaries around the matrix on top of them.
TEST_F(Harness, GuardedMatrixCountsWordsThatDifferInEveryPiece) {
    const size_t count = (size_t{1} << 21) + 37;  // two whole pieces and a tail
    std::vector<float> host(count);
    fill_random(host.data(), count, 5);
    GuardedMatrix m(count, MatrixLayout{1, true});
    m.upload(host.data());
    EXPECT_EQ(m.words_differing_from(host.data()), 0);
    const float changed = 3.0f;
    for (size_t at : {size_t{5}, (size_t{1} << 20) - 1, size_t{1} << 20, count - 1})
        ASSERT_EQ(cudaMemcpy(m.get() + at, &changed, sizeof changed, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(m.words_differing_from(host.data()), 4);
    ASSERT_EQ(cudaMemcpy(m.get() + count, &changed, sizeof changed, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(m.words_changed_since_upload(host.data()), 5);
}

// With every block size the harness times it: a partial last block and the tail past the last float4 included,
// in the one launch.
TEST_F(Harness, CopyKernelCopiesEveryElementIncludingTheTail) {
    for (const int threads : kCopyBlockSizes) {
        for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{1027}, int64_t{4099}, int64_t{(1 << 20) + 3}}) {
            std::vector<float> in(n), out(n);
            fill_random(in.data(), n, 11);
            DeviceBuffer<float> d_in(n), d_out(n);
            d_in.upload(in.data());
            poison_device(d_out.get(), n);
            const LaunchInfo launch = launch_copy(d_in.get(), d_out.get(), n, threads);
            CUDA_CHECK(cudaDeviceSynchronize());
            d_out.download(out.data());
            ASSERT_EQ(in, out) << "n = " << n << ", " << threads << " threads per block";
            // One launch moves it all: a thread per float4, then one per float of the tail.
            const int64_t threads_needed = n / 4 + n % 4;
            EXPECT_EQ(launch.block.x, static_cast<unsigned>(threads)) << "n = " << n;
            EXPECT_EQ(launch.grid.x, static_cast<unsigned>((threads_needed + threads - 1) / threads)) << "n = " << n;
        }
    }
}

TEST_F(Harness, TimingCountsRunsAndRespectsTheBudget) {
    DeviceBuffer<float> a(1 << 20), b(1 << 20);
    const Timing t = time_on_gpu([&] { launch_copy(a.get(), b.get(), 1 << 20); }, TimingPlan{1, 7, 0, false});
    EXPECT_EQ(t.reps(), 7);
    EXPECT_GT(t.min_ms, 0);
    EXPECT_LE(t.min_ms, t.median_ms);
    EXPECT_LE(t.median_ms, t.max_ms);
    // A budget already spent after the minimum stops at the minimum.
    const Timing capped = time_on_gpu([&] { launch_copy(a.get(), b.get(), 1 << 20); }, TimingPlan{0, 50, 1e-9, true});
    EXPECT_EQ(capped.reps(), TimingPlan::kMinReps);
}

TEST_F(Harness, TimingGoesOnPastRepsForTheMinimumTime) {
    DeviceBuffer<float> a(1 << 20), b(1 << 20);
    const auto copy = [&] { launch_copy(a.get(), b.get(), 1 << 20); };
    TimingPlan plan{0, 5, 0, false, 0.2};
    const auto start = std::chrono::steady_clock::now();
    const Timing t = time_on_gpu(copy, plan);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(seconds, 0.2);
    // A 4 MiB copy takes microseconds: 0.2 s is far more than 5 of them.
    EXPECT_GT(t.reps(), 5 * plan.reps);
    // The budget still wins: spent after the minimum, it stops there however long the minimum time.
    plan.budget_s = 1e-9;
    plan.min_time_s = 60;
    EXPECT_EQ(time_on_gpu(copy, plan).reps(), TimingPlan::kMinReps);
}

TEST_F(Harness, TimingInTurnKeepsEachLaunchsTimesApart) {
    // A copy a thousand times longer than the other: its timings must come back in its own place, each launch
    // with its own count of runs. The fastest runs are compared: they are the ones least stretched by anything
    // else on the GPU (the test also runs alone, see tests/CMakeLists.txt).
    const int64_t small = 1 << 16, large = 64 << 20;
    DeviceBuffer<float> a(large), b(large);
    const std::vector<Timing> t = time_on_gpu_in_turn(
        {[&] { launch_copy(a.get(), b.get(), small); }, [&] { launch_copy(a.get(), b.get(), large); }},
        TimingPlan{1, 15, 0, false});
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].reps(), 15);
    EXPECT_EQ(t[1].reps(), 15);
    EXPECT_GT(t[1].min_ms, 4 * t[0].min_ms);
    // The budget is per launch: spent after the minimum, both stop there.
    const std::vector<Timing> capped = time_on_gpu_in_turn(
        {[&] { launch_copy(a.get(), b.get(), small); }, [&] { launch_copy(a.get(), b.get(), small); }},
        TimingPlan{0, 50, 1e-9, false});
    EXPECT_EQ(capped[0].reps(), TimingPlan::kMinReps);
    EXPECT_EQ(capped[1].reps(), TimingPlan::kMinReps);
    EXPECT_TRUE(time_on_gpu_in_turn({}, TimingPlan{}).empty());
}

TEST_F(Harness, TimingQueuesBeforeEachAheadOfEveryTimedRun) {
    // Each timed run must be queued right after one run of before_each, and the warm-up runs none; with L2
    // flushed, the flush is what every run follows, and before_each is not run at all.
    DeviceBuffer<float> a(1 << 16), b(1 << 16);
    std::string order;
    TimingPlan plan{1, 4, 0, false};
    const auto before_each = [&] {
        order += 'b';
        launch_copy(a.get(), b.get(), 1 << 16);
    };
    const auto run = [&](char name) {
        return [&, name] {
            order += name;
            launch_copy(a.get(), b.get(), 1 << 16);
        };
    };
    const std::vector<Timing> t = time_on_gpu_in_turn({run('x'), run('y')}, plan, before_each);
    EXPECT_EQ(t[0].reps(), 4);
    EXPECT_EQ(order,
              "xy"
              "bxby"
              "bxby"
              "bxby"
              "bxby");
    order.clear();
    plan.flush_l2 = true;
    time_on_gpu_in_turn({run('x'), run('y')}, plan, before_each);
    EXPECT_EQ(order,
              "xy"
              "xy"
              "xy"
              "xy"
              "xy");
}

// A launch function whose host side is slow: 100 us pass before its tiny copy is queued.
static std::function<void()> slow_host_then_tiny_copy(DeviceBuffer<float>& a, DeviceBuffer<float>& b) {
    return [&a, &b] {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        launch_copy(a.get(), b.get(), 1 << 10);
    };
}

TEST_F(Harness, TimingLeavesTheHostsLaunchTimeOut) {
    // The second launch spends 100 us on the host before its tiny copy reaches the GPU. Its events must time the
    // copy, not that wait: queued behind the first launch's long copies, its start event is only reached after
    // the copy is already there. Timed launch by launch, with the GPU idle at each start event, every run of it
    // held the wait as well, 0.1 ms or more.
    const int64_t large = 64 << 20;
    DeviceBuffer<float> a(large), b(large);
    const auto long_copies = [&] {
        for (int i = 0; i < 4; ++i) launch_copy(a.get(), b.get(), large);
    };
    const std::vector<Timing> t =
        time_on_gpu_in_turn({long_copies, slow_host_then_tiny_copy(a, b)}, TimingPlan{1, 30, 0, false});
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[1].reps(), 30);
    EXPECT_LT(t[1].median_ms, 0.05) << "the host's 0.1 ms before the launch was timed as the kernel's";
    EXPECT_GT(t[0].median_ms, 0.2) << "the long copies must outlast the host's wait for the test to mean anything";
}

TEST_F(Harness, TimingHoldsTheGpuUntilTheBatchIsQueued) {
    // The same slow host, with nothing queued ahead: a tiny copy alone finishes long before the host has queued
    // the next one, so without the hold the GPU sat idle at every start event and each run timed the host's
    // 0.1 ms too.
    DeviceBuffer<float> a(1 << 10), b(1 << 10);
    const Timing t = time_on_gpu(slow_host_then_tiny_copy(a, b), TimingPlan{1, 30, 0, false});
    EXPECT_EQ(t.reps(), 30);
    EXPECT_LT(t.median_ms, 0.05) << "the host's 0.1 ms before the launch was timed as the kernel's";
}

TEST_F(Harness, TimingGoesOnWhenARunSynchronisesTheDevice) {
    // A launch function that waits for the device itself (as a student's may) must not wait for ever on the
    // kernel that holds the GPU for the host: the hold gives up after its limit, once, and timing goes on
    // without it. 200 runs are several batches; held at each, they would take half a second or more.
    const int64_t small = 1 << 10;
    DeviceBuffer<float> a(small), b(small);
    const auto synchronising_copy = [&] {
        launch_copy(a.get(), b.get(), small);
        CUDA_CHECK(cudaDeviceSynchronize());
    };
    const auto begin = std::chrono::steady_clock::now();
    const Timing t = time_on_gpu(synchronising_copy, TimingPlan{1, 200, 0, false});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    EXPECT_EQ(t.reps(), 200);
    EXPECT_LT(seconds, 0.35) << "the hold waited more than once for a run that synchronises";
    EXPECT_GT(t.median_ms, 0.0);
}

TEST_F(Harness, CublasTransposeAndSgemmAgreeWithTheCpu) {
    const int rows = 33, cols = 70;
    std::vector<float> in(rows * cols), out(rows * cols);
    fill_random(in.data(), in.size(), 3);
    DeviceBuffer<float> d_in(in.size()), d_out(out.size());
    d_in.upload(in.data());
    Cublas cublas;
    cublas.transpose(d_in.get(), d_out.get(), rows, cols);
    d_out.download(out.data());
    EXPECT_TRUE(verify_transpose(in.data(), out.data(), rows, cols).ok);

    const int M = 65, N = 33, K = 129;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    std::vector<double> ref(M * N);
    fill_random(A.data(), A.size(), 1);
    fill_random(B.data(), B.size(), 2);
    matmul_reference(A.data(), B.data(), ref.data(), M, N, K);
    DeviceBuffer<float> dA(A.size()), dB(B.size()), dC(C.size());
    dA.upload(A.data());
    dB.upload(B.data());
    cublas.sgemm_fp32(dA.get(), dB.get(), dC.get(), M, N, K);
    dC.download(C.data());
    const Verdict v = verify_matmul(C.data(), ref.data(), M, N, matmul_tolerance(K, 1, 1));
    EXPECT_TRUE(v.ok) << v.summary();
}

// The ledger behind the per-call leak check: every allocation call it counts, and only the calls that succeed.
TEST_F(Harness, DeviceAllocationsCountEveryAllocationAndFree) {
    const Allocations start = device_allocations_held();
    void *plain = nullptr, *managed = nullptr, *pitched = nullptr, *async = nullptr, *pooled = nullptr;
    size_t pitch = 0;
    ASSERT_EQ(cudaMalloc(&plain, 1000), cudaSuccess);
    ASSERT_EQ(cudaMallocManaged(&managed, 3000), cudaSuccess);
    ASSERT_EQ(cudaMallocPitch(&pitched, &pitch, 100, 7), cudaSuccess);
    ASSERT_EQ(cudaMallocAsync(&async, 5000, nullptr), cudaSuccess);
    cudaMemPool_t pool = nullptr;
    ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
    ASSERT_EQ(cudaMallocAsync(&pooled, 700, pool, nullptr), cudaSuccess);  // cuda_runtime.h: cudaMallocFromPoolAsync
    cudaPitchedPtr cube{};
    ASSERT_EQ(cudaMalloc3D(&cube, make_cudaExtent(100, 3, 2)), cudaSuccess);
    // CUDA arrays, as a texture object reads them: counted by their texels, 4 bytes each here.
    const cudaChannelFormatDesc texel = cudaCreateChannelDesc<float>();
    cudaArray_t flat = nullptr, layered = nullptr;
    ASSERT_EQ(cudaMallocArray(&flat, &texel, 100, 7), cudaSuccess);
    ASSERT_EQ(cudaMalloc3DArray(&layered, &texel, make_cudaExtent(10, 3, 2)), cudaSuccess);
    Allocations now = device_allocations_held();
    EXPECT_EQ(now.count - start.count, 8);
    EXPECT_EQ(now.bytes - start.bytes, static_cast<int64_t>(1000 + 3000 + pitch * 7 + 5000 + 700 + cube.pitch * 3 * 2 +
                                                            4 * 100 * 7 + 4 * 10 * 3 * 2));

    void* too_big = nullptr;
    EXPECT_NE(cudaMalloc(&too_big, size_t{1} << 62), cudaSuccess);
    (void)cudaGetLastError();
    EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
    EXPECT_EQ(device_allocations_held().count - start.count, 8);

    ASSERT_EQ(cudaFreeArray(flat), cudaSuccess);
    ASSERT_EQ(cudaFreeArray(layered), cudaSuccess);
    ASSERT_EQ(cudaFree(cube.ptr), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(pooled, nullptr), cudaSuccess);
    ASSERT_EQ(cudaFree(plain), cudaSuccess);
    ASSERT_EQ(cudaFree(managed), cudaSuccess);
    ASSERT_EQ(cudaFree(pitched), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(async, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    now = device_allocations_held();
    EXPECT_EQ(now.count, start.count);
    EXPECT_EQ(now.bytes, start.bytes);
}

// What a kernel reads from slots of its shared tile that no thread wrote must not be finite by luck in a check:
// the poison before each checked launch fills shared memory with NaN, over whatever the kernel before left there.
// A NaN of its own, so that a value moved out of such a slot is told from an output element never written.
// Run alone (tests/CMakeLists.txt): while another program's kernels run in between, shared memory is theirs.
TEST_F(Harness, SharedMemoryIsPoisonedForTheNextLaunch) {
    const int blocks = 8 * require_device().sm_count;
    GuardedMatrix out(size_t{1024} * blocks, MatrixLayout{});
    uint32_t* const tiles = reinterpret_cast<uint32_t*>(out.get());
    const auto share_of = [&](uint32_t bits) {
        std::vector<float> read(out.count());
        out.download(read.data());
        std::vector<uint32_t> words(read.size());
        std::memcpy(words.data(), read.data(), read.size() * sizeof(float));
        return double(std::count(words.begin(), words.end(), bits)) / words.size();
    };
    constexpr uint32_t kOneBits = 0x3F800000u;  // 1.0f, what an earlier kernel left

    // Without the poison the tiles hold what the kernel before left: the test reads what it means to.
    fill_shared_memory(kOneBits);
    copy_unset_shared_tiles(tiles, blocks);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_GT(share_of(kOneBits), 0.9);

    fill_shared_memory(kOneBits);
    out.poison();
    copy_unset_shared_tiles(tiles, blocks);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const double poisoned = share_of(kSharedPoisonBits);
    std::printf("the tiles read the poison in %.2f%% of their words\n", 100 * poisoned);
    EXPECT_EQ(share_of(kOneBits), 0.0);
    EXPECT_EQ(share_of(kPoisonBits), 0.0);  // every word was copied out of a tile, none left as never written
    EXPECT_GT(poisoned, 0.9);

    // Under compute-sanitizer (no guards) there is no shared-memory poison: its racecheck would follow every store.
    GuardedMatrix unguarded(size_t{1024} * blocks, MatrixLayout{0, false});
    fill_shared_memory(kOneBits);
    unguarded.poison();
    copy_unset_shared_tiles(tiles, blocks);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_GT(share_of(kOneBits), 0.9);
}

// A step function that resets the device: the reset is the verdict, named, for a launch and for step 1's round
// trip alike, and the ledgers forget what the reset destroyed (else they would show it as leaked).
TEST_F(Harness, AResetOfTheDeviceIsNamed) {
    void* destroyed_by_the_reset = nullptr;
    ASSERT_EQ(cudaMalloc(&destroyed_by_the_reset, 1000), cudaSuccess);
    cudaEvent_t destroyed_too = nullptr;
    ASSERT_EQ(cudaEventCreate(&destroyed_too), cudaSuccess);
    Verdict launch_reset;
    LaunchInfo info;
    EXPECT_FALSE(launch_and_record(
        [] {
            EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
            return LaunchInfo{};
        },
        info, launch_reset));
    EXPECT_EQ(launch_reset.headline(),
              "the launch called cudaDeviceReset, which destroys every buffer and stream of the program, the "
              "caller's as well as its own");
    EXPECT_NE(launch_reset.hint.find("leave the reset out"), std::string::npos) << launch_reset.hint;
    EXPECT_EQ(device_allocations_held().count, 0);
    EXPECT_EQ(events_held().count, 0);

    bool verified = false;
    const Verdict round_trip_reset = check_round_trip([] { EXPECT_EQ(cudaDeviceReset(), cudaSuccess); },
                                                      [&] {
                                                          verified = true;
                                                          return Verdict{};
                                                      },
                                                      "resets_at_the_end");
    EXPECT_FALSE(round_trip_reset.ok);
    EXPECT_EQ(round_trip_reset.headline().rfind("it called cudaDeviceReset, which destroys ", 0), 0u)
        << round_trip_reset.headline();
    EXPECT_FALSE(verified);  // nothing the function left can be trusted

    // No reset, no failure: the count is compared, not merely read.
    Verdict no_reset;
    EXPECT_TRUE(launch_and_record([] { return LaunchInfo{}; }, info, no_reset)) << no_reset.summary();
}

// The second ledger: pinned host memory, from either call and through cuda_runtime.h's typed template, which
// calls cudaHostAlloc. Device memory is not counted there, nor pinned memory in the device ledger.
TEST_F(Harness, PinnedHostAllocationsAreCountedApart) {
    const Allocations start = pinned_host_allocations_held();
    const Allocations device_start = device_allocations_held();
    void* plain = nullptr;
    float* typed = nullptr;
    void* mapped = nullptr;
    ASSERT_EQ(cudaMallocHost(&plain, 1000), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&typed, 3000), cudaSuccess);
    ASSERT_EQ(cudaHostAlloc(&mapped, 5000, cudaHostAllocMapped), cudaSuccess);
    Allocations now = pinned_host_allocations_held();
    EXPECT_EQ(now.count - start.count, 3);
    EXPECT_EQ(now.bytes - start.bytes, 9000);
    EXPECT_EQ(device_allocations_held().count, device_start.count);

    void* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, 256), cudaSuccess);
    EXPECT_EQ(pinned_host_allocations_held().count - start.count, 3);
    EXPECT_NE(cudaFreeHost(device), cudaSuccess);  // not pinned host memory: refused, and nothing changes
    (void)cudaGetLastError();
    EXPECT_EQ(pinned_host_allocations_held().count - start.count, 3);
    ASSERT_EQ(cudaFree(device), cudaSuccess);

    for (void* p : {plain, static_cast<void*>(typed), mapped}) ASSERT_EQ(cudaFreeHost(p), cudaSuccess);
    now = pinned_host_allocations_held();
    EXPECT_EQ(now.count, start.count);
    EXPECT_EQ(now.bytes, start.bytes);
}

// The third ledger: host memory of the program's own, pinned in place by cudaHostRegister until cudaHostUnregister.
// A round trip that leaves any of it registered fails at once; one that unregisters what it registered passes.
TEST_F(Harness, HostRegistrationsLeftByARoundTripAreALeak) {
    const Allocations start = host_registrations_held(), pinned_start = pinned_host_allocations_held();
    std::vector<float> first(1 << 20), second(1 << 20);  // large enough to have pages of their own
    ASSERT_EQ(cudaHostRegister(first.data(), 4000, cudaHostRegisterDefault), cudaSuccess);
    EXPECT_EQ(host_registrations_held().count - start.count, 1);
    EXPECT_EQ(host_registrations_held().bytes - start.bytes, 4000);
    EXPECT_NE(cudaHostRegister(first.data(), 4000, cudaHostRegisterDefault), cudaSuccess);  // registered already
    (void)cudaGetLastError();
    EXPECT_EQ(host_registrations_held().count - start.count, 1);
    ASSERT_EQ(cudaHostUnregister(first.data()), cudaSuccess);
    EXPECT_EQ(host_registrations_held().count, start.count);
    EXPECT_EQ(pinned_host_allocations_held().count, pinned_start.count);  // nor in the pinned ledger

    const auto right = [] { return Verdict{}; };
    const auto registers_and_unregisters = [&] {
        EXPECT_EQ(cudaHostRegister(first.data(), 4000, cudaHostRegisterDefault), cudaSuccess);
        EXPECT_EQ(cudaHostUnregister(first.data()), cudaSuccess);
    };
    const Verdict clean = check_round_trip(registers_and_unregisters, right, "registers_and_unregisters");
    EXPECT_TRUE(clean.ok) << clean.summary();
    const auto leaves_two = [&] {
        EXPECT_EQ(cudaHostRegister(first.data(), 4000, cudaHostRegisterDefault), cudaSuccess);
        EXPECT_EQ(cudaHostRegister(second.data(), 12000, cudaHostRegisterDefault), cudaSuccess);
    };
    const Verdict leaking = check_round_trip(leaves_two, right, "leaves_two");
    EXPECT_FALSE(leaking.ok);
    EXPECT_EQ(leaking.headline(),
              "leak: leaves_two returns with 2 host ranges (16000 bytes) still registered with cudaHostRegister");
    // Undone once the verdict has counted them: the next check finds the caller's pages unregistered.
    EXPECT_EQ(host_registrations_held().count, start.count);
    EXPECT_EQ(cudaHostRegister(first.data(), 4000, cudaHostRegisterDefault), cudaSuccess);
    EXPECT_EQ(cudaHostUnregister(first.data()), cudaSuccess);
}

// Step 1's round trips: one that keeps no pinned memory, or one buffer for good, passes; one that takes a pinned
// buffer on every trip and never gives it back fails, with the count and the bytes.
TEST_F(Harness, RoundTripsThatKeepPinnedMemoryAreALeak) {
    int trips = 0;
    const auto takes_nothing = [&trips] { ++trips; };
    const auto right = [] { return Verdict{}; };  // every trip's output checks out
    const Verdict clean = check_round_trip(takes_nothing, right, "takes_nothing");
    EXPECT_TRUE(clean.ok) << clean.summary();
    EXPECT_EQ(trips, 1);  // nothing was left, so no more trips were made

    static void* kept = nullptr;
    const auto keeps_one = [] {
        if (!kept) { EXPECT_EQ(cudaMallocHost(&kept, 512), cudaSuccess); }
    };
    const Verdict keeping = check_round_trip(keeps_one, right, "keeps_one");
    EXPECT_TRUE(keeping.ok) << keeping.summary();

    std::vector<float*> staged;
    const auto stages_every_trip = [&staged] {
        staged.push_back(nullptr);
        EXPECT_EQ(cudaMallocHost(&staged.back(), 2048), cudaSuccess);
    };
    const Verdict leaking = check_round_trip(stages_every_trip, right, "stages_every_trip");
    EXPECT_FALSE(leaking.ok);
    EXPECT_TRUE(leaking.failure.empty());
    EXPECT_EQ(leaking.headline(),
              "leak: every call of stages_every_trip leaves pinned host memory allocated: 2 more calls left 2 "
              "allocations (4096 bytes) that nothing freed");
    EXPECT_EQ(staged.size(), 3u);
    for (float* p : staged) EXPECT_EQ(cudaFreeHost(p), cudaSuccess);
    EXPECT_EQ(cudaFreeHost(kept), cudaSuccess);
}

namespace {

// What a texture object reads when it reads `buffer` as plain floats.
cudaResourceDesc linear_resource(const DeviceBuffer<float>& buffer) {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = buffer.get();
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
    resource.res.linear.sizeInBytes = buffer.bytes();
    return resource;
}

// The headline of check_calls_leave_nothing_behind's verdict on `launch`, or "" where it passes.
std::string what_further_calls_leave(const std::function<LaunchInfo()>& launch, const char* function) {
    Verdict verdict;
    check_calls_leave_nothing_behind(launch, function, verdict);
    return verdict.ok ? std::string() : verdict.headline();
}

// The same for a launch that makes one Handle with `make` on every call and keeps it; what the calls made is given
// back afterwards with `give_back`.
template <typename Handle, typename Make, typename GiveBack>
std::string what_calls_making_one_leave(const char* function, Make make, GiveBack give_back) {
    std::vector<Handle> made;
    const auto makes_one = [&] {
        made.push_back(Handle{});
        EXPECT_EQ(make(&made.back()), cudaSuccess);
        return LaunchInfo{};
    };
    const std::string said = what_further_calls_leave(makes_one, function);
    for (Handle h : made) EXPECT_EQ(give_back(h), cudaSuccess);
    return said;
}

}  // namespace

// The ledger of CUDA objects: streams from every call that makes one, events from both, texture and surface
// objects, each until it is destroyed, and only the calls that succeed. Non-blocking streams are counted apart and
// for good: the timing's check for work it cannot see, and the poison's wait, go by that count.
TEST_F(Harness, CudaObjectsAreCountedAsMadeAndDestroyed) {
    const int non_blocking_start = non_blocking_streams_made();
    const int64_t streams_start = streams_held().count, events_start = events_held().count;
    const int64_t textures_start = texture_objects_held().count, surfaces_start = surface_objects_held().count;
    cudaStream_t plain = nullptr, blocking = nullptr, non_blocking = nullptr, with_priority = nullptr;
    ASSERT_EQ(cudaStreamCreate(&plain), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault), cudaSuccess);
    EXPECT_EQ(non_blocking_streams_made(), non_blocking_start);
    ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithPriority(&with_priority, cudaStreamNonBlocking, 0), cudaSuccess);
    EXPECT_EQ(non_blocking_streams_made(), non_blocking_start + 2);
    EXPECT_NE(cudaStreamCreateWithFlags(nullptr, cudaStreamNonBlocking), cudaSuccess);
    (void)cudaGetLastError();
    EXPECT_EQ(non_blocking_streams_made(), non_blocking_start + 2);
    EXPECT_EQ(streams_held().count, streams_start + 4);

    cudaEvent_t plain_event = nullptr, timing_free = nullptr;
    ASSERT_EQ(cudaEventCreate(&plain_event), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&timing_free, cudaEventDisableTiming), cudaSuccess);  // cudaEventCreateWithFlags
    EXPECT_EQ(events_held().count, events_start + 2);

    DeviceBuffer<float> linear(256);
    const cudaResourceDesc from_linear = linear_resource(linear);
    const cudaTextureDesc reading{};
    cudaTextureObject_t texture = 0;
    ASSERT_EQ(cudaCreateTextureObject(&texture, &from_linear, &reading, nullptr), cudaSuccess);
    EXPECT_EQ(texture_objects_held().count, textures_start + 1);

    const cudaChannelFormatDesc texel = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    ASSERT_EQ(cudaMallocArray(&array, &texel, 16, 16, cudaArraySurfaceLoadStore), cudaSuccess);
    cudaResourceDesc from_array{};
    from_array.resType = cudaResourceTypeArray;
    from_array.res.array.array = array;
    cudaSurfaceObject_t surface = 0;
    ASSERT_EQ(cudaCreateSurfaceObject(&surface, &from_array), cudaSuccess);
    EXPECT_EQ(surface_objects_held().count, surfaces_start + 1);

    EXPECT_NE(cudaEventDestroy(nullptr), cudaSuccess);  // a failed destroy changes nothing
    (void)cudaGetLastError();
    EXPECT_EQ(events_held().count, events_start + 2);
    for (cudaStream_t s : {plain, blocking, non_blocking, with_priority}) EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    for (cudaEvent_t e : {plain_event, timing_free}) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
    EXPECT_EQ(cudaDestroyTextureObject(texture), cudaSuccess);
    EXPECT_EQ(cudaDestroySurfaceObject(surface), cudaSuccess);
    EXPECT_EQ(cudaFreeArray(array), cudaSuccess);
    EXPECT_EQ(streams_held().count, streams_start);
    EXPECT_EQ(events_held().count, events_start);
    EXPECT_EQ(texture_objects_held().count, textures_start);
    EXPECT_EQ(surface_objects_held().count, surfaces_start);
}

// Graphs, made empty, cloned or captured from the work queued on a stream, and the executable graph of each
// instantiation, each counted until it is destroyed; a capture that fails makes none.
TEST_F(Harness, GraphsAndExecutableGraphsAreCountedAsMadeAndDestroyed) {
    const int64_t graphs_start = graphs_held().count, executables_start = executable_graphs_held().count;
    cudaGraph_t empty = nullptr, clone = nullptr, captured = nullptr, not_captured = nullptr;
    ASSERT_EQ(cudaGraphCreate(&empty, 0), cudaSuccess);
    cudaGraphNode_t node = nullptr;
    ASSERT_EQ(cudaGraphAddEmptyNode(&node, empty, nullptr, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphClone(&clone, empty), cudaSuccess);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    DeviceBuffer<float> buffer(256);
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), stream), cudaSuccess);
    ASSERT_EQ(cudaStreamEndCapture(stream, &captured), cudaSuccess);
    EXPECT_NE(cudaStreamEndCapture(stream, &not_captured), cudaSuccess);  // no capture under way
    (void)cudaGetLastError();
    EXPECT_EQ(graphs_held().count, graphs_start + 3);

    cudaGraphExec_t plain = nullptr, with_flags = nullptr, with_params = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&plain, empty, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphInstantiateWithFlags(&with_flags, clone, 0), cudaSuccess);
    cudaGraphInstantiateParams params{};
    ASSERT_EQ(cudaGraphInstantiateWithParams(&with_params, captured, &params), cudaSuccess);
    EXPECT_EQ(executable_graphs_held().count, executables_start + 3);
    EXPECT_EQ(cudaGraphLaunch(with_params, nullptr), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);

    for (cudaGraphExec_t e : {plain, with_flags, with_params}) EXPECT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
    EXPECT_EQ(executable_graphs_held().count, executables_start);
    for (cudaGraph_t g : {empty, clone, captured}) EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
    EXPECT_EQ(graphs_held().count, graphs_start);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Once the program has made a non-blocking stream, the checks' poison waits behind a hold on the default stream. A
// copy queued on such a stream without waiting for the default one then runs before the poison, and its output is
// poisoned every time, not by luck; one that waits for the default stream (an event) gets the right answer.
TEST_F(Harness, WorkOnANonBlockingStreamLosesTheRaceToThePoisonEveryTime) {
    constexpr size_t kCount = 1 << 16;
    cudaStream_t own = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t poisoned = nullptr;
    ASSERT_EQ(cudaEventCreateWithFlags(&poisoned, cudaEventDisableTiming), cudaSuccess);
    std::vector<float> in(kCount), out(kCount);
    fill_random(in.data(), kCount, 7);
    GuardedMatrix d_in(kCount, {0, true}), d_out(kCount, {0, true});
    d_in.upload(in.data());
    for (int round = 0; round < 5; ++round) {
        d_out.poison();
        ASSERT_EQ(cudaMemcpyAsync(d_out.get(), d_in.get(), kCount * sizeof(float), cudaMemcpyDeviceToDevice, own),
                  cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        d_out.download(out.data());
        EXPECT_EQ(std::count_if(out.begin(), out.end(), is_poison), static_cast<long>(kCount)) << "round " << round;

        d_out.poison();
        ASSERT_EQ(cudaEventRecord(poisoned, nullptr), cudaSuccess);
        ASSERT_EQ(cudaStreamWaitEvent(own, poisoned, 0), cudaSuccess);
        ASSERT_EQ(cudaMemcpyAsync(d_out.get(), d_in.get(), kCount * sizeof(float), cudaMemcpyDeviceToDevice, own),
                  cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        d_out.download(out.data());
        EXPECT_EQ(out, in) << "round " << round;
    }
    EXPECT_EQ(cudaEventDestroy(poisoned), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(own), cudaSuccess);
}

// A launch that keeps one buffer passes; one that allocates on every call fails, with the count and the bytes.
TEST_F(Harness, CallsThatAllocateEveryTimeAreALeak) {
    static void* kept = nullptr;
    std::vector<void*> leaked;
    const auto keeps_one = [] {
        if (!kept) { EXPECT_EQ(cudaMalloc(&kept, 256), cudaSuccess); }
        return LaunchInfo{};
    };
    const auto allocates_each_time = [&leaked] {
        leaked.push_back(nullptr);
        EXPECT_EQ(cudaMalloc(&leaked.back(), 4096), cudaSuccess);
        return LaunchInfo{};
    };
    Verdict keeping;
    keeps_one();  // the checked call, which may allocate what it keeps
    check_calls_leave_nothing_behind(keeps_one, "keeps_one", keeping);
    EXPECT_TRUE(keeping.ok) << keeping.summary();
    // The same buffer allocated only on the first of the two further calls (say, once memory became free).
    ASSERT_EQ(cudaFree(kept), cudaSuccess);
    kept = nullptr;
    Verdict keeping_late;
    check_calls_leave_nothing_behind(keeps_one, "keeps_one", keeping_late);
    EXPECT_TRUE(keeping_late.ok) << keeping_late.summary();

    Verdict leaking;
    check_calls_leave_nothing_behind(allocates_each_time, "allocates_each_time", leaking);
    EXPECT_FALSE(leaking.ok);
    EXPECT_TRUE(leaking.failure.empty());
    EXPECT_EQ(leaking.headline(),
              "leak: every call of allocates_each_time leaves device memory allocated: 2 more calls left 2 "
              "allocations (8192 bytes) that nothing freed");
    for (void* p : leaked) EXPECT_EQ(cudaFree(p), cudaSuccess);
    EXPECT_EQ(cudaFree(kept), cudaSuccess);
    kept = nullptr;
}

// What else a launch may take on every call and never give back: events, texture objects, pinned host memory,
// streams, executable graphs and graphs, each named with its count. A stream made and destroyed on every call
// leaves nothing.
TEST_F(Harness, CallsThatLeaveObjectsOrPinnedMemoryBehindAreALeak) {
    const auto event = [](cudaEvent_t* e) { return cudaEventCreate(e); };
    EXPECT_EQ(what_calls_making_one_leave<cudaEvent_t>("makes_an_event", event, cudaEventDestroy),
              "leak: every call of makes_an_event leaves an event behind: 2 more calls left 2 events that nothing "
              "destroyed");

    DeviceBuffer<float> linear(256);
    const cudaResourceDesc resource = linear_resource(linear);
    const cudaTextureDesc reading{};
    const auto texture = [&](cudaTextureObject_t* t) {
        return cudaCreateTextureObject(t, &resource, &reading, nullptr);
    };
    EXPECT_EQ(what_calls_making_one_leave<cudaTextureObject_t>("makes_a_texture", texture, cudaDestroyTextureObject),
              "leak: every call of makes_a_texture leaves a texture object behind: 2 more calls left 2 texture "
              "objects that nothing destroyed");

    const auto pinned = [](void** p) { return cudaMallocHost(p, 1024); };
    EXPECT_EQ(what_calls_making_one_leave<void*>("pins_a_buffer", pinned, cudaFreeHost),
              "leak: every call of pins_a_buffer leaves pinned host memory allocated: 2 more calls left 2 "
              "allocations (2048 bytes) that nothing freed");

    const auto stream = [](cudaStream_t* s) { return cudaStreamCreate(s); };
    EXPECT_EQ(what_calls_making_one_leave<cudaStream_t>("makes_a_stream", stream, cudaStreamDestroy),
              "leak: every call of makes_a_stream leaves a stream behind: 2 more calls left 2 streams that nothing "
              "destroyed");

    cudaGraph_t graph = nullptr;
    cudaGraphNode_t node = nullptr;
    ASSERT_EQ(cudaGraphCreate(&graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphAddEmptyNode(&node, graph, nullptr, 0), cudaSuccess);
    const auto executable = [graph](cudaGraphExec_t* e) { return cudaGraphInstantiate(e, graph, 0); };
    EXPECT_EQ(what_calls_making_one_leave<cudaGraphExec_t>("instantiates_a_graph", executable, cudaGraphExecDestroy),
              "leak: every call of instantiates_a_graph leaves an executable graph behind: 2 more calls left 2 "
              "executable graphs that nothing destroyed");
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    const auto empty_graph = [](cudaGraph_t* g) { return cudaGraphCreate(g, 0); };
    EXPECT_EQ(what_calls_making_one_leave<cudaGraph_t>("makes_a_graph", empty_graph, cudaGraphDestroy),
              "leak: every call of makes_a_graph leaves a CUDA graph behind: 2 more calls left 2 CUDA graphs that "
              "nothing destroyed");

    const auto makes_and_destroys_a_stream = [] {
        cudaStream_t s = nullptr;
        EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
        EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
        return LaunchInfo{};
    };
    EXPECT_EQ(what_further_calls_leave(makes_and_destroys_a_stream, "makes_and_destroys_a_stream"), "");
}

// Step 1's round trip: one that times its copies with events it never destroys leaks them, named by count; one
// that destroys them passes.
TEST_F(Harness, RoundTripsThatKeepEventsAreALeak) {
    const auto right = [] { return Verdict{}; };
    std::vector<cudaEvent_t> kept;
    const auto times_and_keeps = [&kept] {
        kept.push_back(nullptr);
        EXPECT_EQ(cudaEventCreate(&kept.back()), cudaSuccess);
    };
    const Verdict leaking = check_round_trip(times_and_keeps, right, "times_and_keeps");
    EXPECT_EQ(leaking.headline(),
              "leak: every call of times_and_keeps leaves an event behind: 2 more calls left 2 events that nothing "
              "destroyed");
    EXPECT_EQ(kept.size(), 3u);
    for (cudaEvent_t e : kept) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
    const auto times_and_destroys = [] {
        cudaEvent_t e = nullptr;
        EXPECT_EQ(cudaEventCreate(&e), cudaSuccess);
        EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
    };
    const Verdict clean = check_round_trip(times_and_destroys, right, "times_and_destroys");
    EXPECT_TRUE(clean.ok) << clean.summary();
}

// A buffer kept and grown: one that frees the old buffer before taking a larger one passes the calls at larger
// sizes; one that forgets to fails, with both sizes named; a launch that fails there fails the verdict, with its
// size. The two larger sizes grow by at least 128 in every side and are 3 more than a multiple of 4.
TEST_F(Harness, BuffersGrownWithoutFreeingTheOldAreALeak) {
    struct Grown {
        void* buffer = nullptr;
        size_t capacity = 0;
        bool frees_the_old = true;
        std::vector<void*> left;
        LaunchInfo launch(size_t bytes) {
            if (bytes <= capacity) return LaunchInfo{};
            if (frees_the_old && buffer) {
                EXPECT_EQ(cudaFree(buffer), cudaSuccess);
            } else if (buffer) {
                left.push_back(buffer);
            }
            EXPECT_EQ(cudaMalloc(&buffer, bytes), cudaSuccess);
            capacity = bytes;
            return LaunchInfo{};
        }
        std::vector<LaunchAtSize> at(size_t first, size_t second) {
            return {{"first", [this, first] { return launch(first); }},
                    {"second", [this, second] { return launch(second); }}};
        }
    };
    Grown right, forgetting;
    forgetting.frees_the_old = false;
    right.launch(1024);
    forgetting.launch(1024);  // the checked call
    Verdict growing;
    check_larger_calls_leave_no_memory(right.at(2048, 4096), "right", growing);
    EXPECT_TRUE(growing.ok) << growing.summary();
    Verdict leaking;
    check_larger_calls_leave_no_memory(forgetting.at(2048, 4096), "forgetting", leaking);
    EXPECT_FALSE(leaking.ok);
    EXPECT_TRUE(leaking.failure.empty());
    EXPECT_EQ(leaking.headline(),
              "leak: every call of forgetting at a larger size leaves device memory allocated: calls at first and "
              "second left 2 allocations (6144 bytes) that nothing freed");
    // Grown only at the first larger size (the second fits): no leak is shown, as no size leaked twice.
    Grown once;
    once.frees_the_old = false;
    once.launch(1024);
    Verdict grown_once;
    check_larger_calls_leave_no_memory(once.at(4096, 2048), "once", grown_once);
    EXPECT_TRUE(grown_once.ok) << grown_once.summary();
    for (Grown* g : {&right, &forgetting, &once}) {
        g->left.push_back(g->buffer);
        for (void* p : g->left) EXPECT_EQ(cudaFree(p), cudaSuccess);
    }

    // An error left pending by the call (here a cudaMalloc far too large) is what a refused launch leaves.
    Verdict refused;
    check_larger_calls_leave_no_memory({{"first", [] { return LaunchInfo{}; }},
                                        {"second",
                                         [] {
                                             void* p = nullptr;
                                             (void)cudaMalloc(&p, size_t{1} << 60);
                                             return LaunchInfo{};
                                         }}},
                                       "refuses", refused);
    EXPECT_FALSE(refused.ok);
    EXPECT_EQ(refused.failure.rfind("at second, a larger size that the leak check calls refuses with: the launch "
                                    "failed: cudaErrorMemoryAllocation",
                                    0),
              0u)
        << refused.failure;
    // Right at the checked size, so the hint is about what an earlier call left, not about a bounds test.
    EXPECT_NE(refused.hint.find("a buffer allocated on the first call and never grown"), std::string::npos)
        << refused.hint;

    EXPECT_EQ(side_for_the_growth_check(1, 1), 135);
    EXPECT_EQ(side_for_the_growth_check(1, 2), 263);
    for (int side : {1, 2, 3, 4, 64, 97, 1031})
        for (int call : {1, 2}) {
            const int larger = side_for_the_growth_check(side, call);
            const int before = call == 1 ? side : side_for_the_growth_check(side, 1);
            EXPECT_EQ(larger % 4, 3) << side << ", call " << call;
            EXPECT_GE(larger - before, 128) << side << ", call " << call;
        }
}

// A wrong answer is launched again, on a poisoned output: one that comes out the same keeps its verdict, one that
// changes is named as changing (here a launch that copies from another input each time, as a kernel does when it
// reads what the launch before left), and one that fails the second time becomes that failure.
TEST_F(Harness, AWrongAnswerIsLaunchedAgainAndComparedBitForBit) {
    constexpr int64_t kCount = 1000;
    std::vector<float> a(kCount), b(kCount);
    fill_random(a.data(), a.size(), 1);
    b = a;
    for (int64_t i = 0; i < kCount; i += 10) b[i] += 1.0f;  // 100 elements differ
    DeviceBuffer<float> d_a(kCount), d_b(kCount);
    ASSERT_EQ(cudaMemcpy(d_a.get(), a.data(), kCount * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_b.get(), b.data(), kCount * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    GuardedMatrix out(kCount, {0, true});
    int launches = 0;
    const auto alternating = [&] { return launch_copy(++launches % 2 ? d_a.get() : d_b.get(), out.get(), kCount); };
    const auto steady = [&] { return launch_copy(d_a.get(), out.get(), kCount); };

    Verdict wrong;
    wrong.ok = false, wrong.wrong = 1, wrong.checked = kCount, wrong.hint = "the pattern's hint";
    Verdict unchanged = wrong;
    compare_with_a_second_launch(steady, out, a, unchanged);
    EXPECT_EQ(unchanged.changed_by_relaunch, 0);
    EXPECT_EQ(unchanged.hint, "the pattern's hint");

    Verdict changed = wrong;
    launches = 0;
    compare_with_a_second_launch(alternating, out, a, changed);  // launch 1 reads a: unchanged
    EXPECT_EQ(changed.changed_by_relaunch, 0);
    compare_with_a_second_launch(alternating, out, a, changed);  // launch 2 reads b
    EXPECT_EQ(changed.changed_by_relaunch, 100);
    EXPECT_NE(changed.headline().find("100 elements differ in a second launch on the same inputs"), std::string::npos)
        << changed.headline();
    EXPECT_TRUE(changed.failure.empty());

    Verdict right;  // a right answer is not launched again
    int right_launches = 0;
    compare_with_a_second_launch(
        [&] {
            ++right_launches;
            return steady();
        },
        out, a, right);
    EXPECT_EQ(right_launches, 0);

    Verdict refused = wrong;
    compare_with_a_second_launch([&] { return launch_copy(d_a.get(), out.get(), kCount, 2048); }, out, a, refused);
    EXPECT_FALSE(refused.failure.empty());
    EXPECT_EQ(refused.failure.rfind("on a second launch with the same inputs: ", 0), 0u) << refused.failure;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// The last of the further calls at the checked size: the same bits as the checked run pass at once; other bits
// are verified again, and pass if right (a sum added in another order); wrong, they become the verdict, named as
// the third launch's. Here the further calls are stood in for by copies into the output.
TEST_F(Harness, AFurtherCallThatGoesWrongIsTheVerdict) {
    constexpr int kCount = 1000;
    std::vector<float> a(kCount), b(kCount);
    fill_random(a.data(), a.size(), 3);
    b = a;
    for (int i = 0; i < kCount; i += 10) b[i] += 1.0f;
    GuardedMatrix out(kCount, {0, true});
    const auto verify_against_a = [&](const float* last) { return verify_transpose(a.data(), last, 1, kCount); };

    out.upload(a.data());
    Verdict same;
    check_the_last_further_call(out, a, verify_against_a, same);
    EXPECT_TRUE(same.ok) << same.summary();

    out.upload(b.data());
    Verdict rounded;  // other bits, but the verification passes them
    check_the_last_further_call(
        out, a, [](const float*) { return Verdict{}; }, rounded);
    EXPECT_TRUE(rounded.ok) << rounded.summary();

    Verdict wrong_later;
    check_the_last_further_call(out, a, verify_against_a, wrong_later);
    EXPECT_FALSE(wrong_later.ok);
    EXPECT_EQ(wrong_later.headline().rfind("right on the first launch, wrong on the third at the same size: 100 of "
                                           "1000 wrong",
                                           0),
              0u)
        << wrong_later.headline();
    EXPECT_NE(wrong_later.hint.find("keep something from one launch to the next"), std::string::npos);

    Verdict already_wrong;
    already_wrong.ok = false, already_wrong.wrong = 5;
    check_the_last_further_call(out, a, verify_against_a, already_wrong);
    EXPECT_EQ(already_wrong.wrong, 5);
    EXPECT_TRUE(already_wrong.wrong_on.empty());
}

// make run's check after the timed launches: a kernel right at first and wrong after them gets a FAIL line that
// says so, with the hint about state kept from one launch to the next; once the program has made a non-blocking
// stream, the note about that stream instead, the likelier cause. That count is for good, so the first half runs
// only in a process that has made none (as under ctest, which runs each test alone).
TEST_F(Harness, AnAnswerWrongAfterTheTimedRunsSaysSo) {
    Verdict right;
    EXPECT_FALSE(report_wrong_after_timing(right, "64x64").has_value());
    Verdict wrong;
    wrong.ok = false, wrong.wrong = 4096, wrong.checked = 4096;
    const auto printed_for_wrong = [&] {
        testing::internal::CaptureStdout();
        const std::optional<int> code = report_wrong_after_timing(wrong, "64x64");
        const std::string printed = testing::internal::GetCapturedStdout();
        EXPECT_EQ(code, std::optional<int>(kExitWrongAnswer));
        EXPECT_EQ(printed.rfind("FAIL: after the timed runs at 64x64: 4096 of 4096 wrong", 0), 0u) << printed;
        return printed;
    };
    const std::string kept_state = "right on its first launch, wrong after the timed ones";
    if (non_blocking_streams_made() == 0) {
        const std::string printed = printed_for_wrong();
        EXPECT_NE(printed.find(kept_state), std::string::npos) << printed;
        EXPECT_EQ(printed.find(kNonBlockingStreamMade), std::string::npos) << printed;
    }
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
    const std::string printed = printed_for_wrong();
    EXPECT_EQ(printed.find(kept_state), std::string::npos) << printed;
    EXPECT_NE(printed.find(kNonBlockingStreamMade), std::string::npos) << printed;
}

// The map's block boundaries come from the launch: the first tiling that accounts for every block of the grid.
// Needs no GPU, but LaunchInfo is the step contract's, built here with CUDA.
namespace {
ElementStates output_of(int64_t rows, int64_t cols) {
    ElementStates s;
    s.rows = rows, s.cols = cols;
    return s;
}
void kernel_stand_in() {}
LaunchInfo launch_of(dim3 grid, dim3 block) {
    return LaunchInfo{reinterpret_cast<const void*>(&kernel_stand_in), grid, block, 0};
}
}  // namespace

TEST(MapBlocks, ASquareTileAsWideAsTheBlock) {
    ElementStates s = output_of(61, 97);  // a 97 x 61 transpose in tiles of 32, by 32 x 8 threads
    mark_launch_blocks(s, launch_of(dim3(2, 4), dim3(32, 8)));
    EXPECT_EQ(s.block_rows, 32);
    EXPECT_EQ(s.block_cols, 32);
}

TEST(MapBlocks, TheBlocksOwnShapeWhereTheSquareDoesNotCoverTheGrid) {
    ElementStates s = output_of(129, 65);  // a block of 32 x 8 threads, one element each, 32 rows by 8 columns
    mark_launch_blocks(s, launch_of(dim3(5, 9), dim3(32, 8)));
    EXPECT_EQ(s.block_rows, 32);
    EXPECT_EQ(s.block_cols, 8);
}

TEST(MapBlocks, AOneDimensionalBlockGetsAPowerOfTwoSquareOrNothing) {
    ElementStates s = output_of(129, 65);  // 128 threads moving tiles of 32 x 32: 5 x 3 blocks
    mark_launch_blocks(s, launch_of(dim3(15), dim3(128)));
    EXPECT_EQ(s.block_rows, 32);
    EXPECT_EQ(s.block_cols, 32);
    ElementStates looped = output_of(1000, 1000);  // a grid that loops: no tiling accounts for 7 blocks
    mark_launch_blocks(looped, launch_of(dim3(7), dim3(256)));
    EXPECT_EQ(looped.block_rows, 0);
    EXPECT_EQ(looped.block_cols, 0);
}

TEST(MapBlocks, AGridRoundedDownKeepsTheSquare) {
    ElementStates s = output_of(61, 97);  // 97 x 61 with the block count rounded down: 1 x 3 blocks of 32 x 32
    mark_launch_blocks(s, launch_of(dim3(1, 3), dim3(32, 32)));
    EXPECT_EQ(s.block_rows, 32);
    EXPECT_EQ(s.block_cols, 32);
}
