// The direction a copy names, against the memory its pointers point to (copy_directions.hpp): counted while a check
// runs, never outside one, and never for cudaMemcpyDefault; a check whose calls made a wrong one fails for it.
#include <vector>

#include "ledger/allocations.hpp"
#include "check/checked_launch.hpp"
#include "ledger/copy_directions.hpp"
#include "step/device_buffer.cuh"
#include "gpu_test_support.hpp"

using namespace workshop;

using Harness = GpuTest;

namespace {

constexpr size_t kFloats = 1024, kBytes = kFloats * sizeof(float);

}  // namespace

TEST_F(Harness, CopiesNamingTheWrongDirectionAreCountedWhileACheckRuns) {
    const DeviceBuffer<float> device_buffer(kFloats);
    const PinnedBuffer<float> pinned_buffer(kFloats);
    float* const device = device_buffer.get();
    float* const pinned = pinned_buffer.get();
    const int start = copies_in_the_wrong_direction();
    // Outside a check nothing is compared: the timed runs pay nothing for it.
    ASSERT_EQ(cudaMemcpy(pinned, device, kBytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(copies_in_the_wrong_direction(), start);

    const FreshMemoryPoisoned check_runs;
    ASSERT_EQ(cudaMemcpy(device, pinned, kBytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(pinned, device, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(pinned, device, kBytes, cudaMemcpyDefault), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(device, device, kBytes, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(copies_in_the_wrong_direction(), start);  // every kind above fits its pointers

    // Pinned memory at both ends: the runtime finds the way, and only the comparison sees the wrong kind.
    EXPECT_EQ(cudaMemcpy(pinned, device, kBytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(copies_in_the_wrong_direction(), start + 1);
    EXPECT_EQ(the_copy_in_the_wrong_direction(start),
              "a cudaMemcpy of 4096 bytes named cudaMemcpyHostToDevice, from device memory to pinned host memory");
    // Pageable memory: the runtime refuses the copy (invalid argument, on an H100), and it is counted as well.
    std::vector<float> pageable(kFloats);
    EXPECT_NE(cudaMemcpyAsync(device, pageable.data(), kBytes, cudaMemcpyDeviceToHost, nullptr), cudaSuccess);
    (void)cudaGetLastError();
    EXPECT_EQ(copies_in_the_wrong_direction(), start + 2);
    EXPECT_EQ(the_copy_in_the_wrong_direction(start + 1),
              "a cudaMemcpyAsync of 4096 bytes named cudaMemcpyDeviceToHost, from pageable host memory to device "
              "memory");
}

TEST_F(Harness, ARoundTripThatNamesTheWrongDirectionFails) {
    const DeviceBuffer<float> device_buffer(kFloats);
    const PinnedBuffer<float> pinned_buffer(kFloats);
    float* const device = device_buffer.get();
    float* const pinned = pinned_buffer.get();
    const auto right = [] { return Verdict{}; };
    const auto named_right = [&] {
        EXPECT_EQ(cudaMemcpy(pinned, device, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
    };
    const Verdict clean = check_round_trip(named_right, right, "named_right");
    EXPECT_TRUE(clean.ok) << clean.summary();
    const auto named_wrong = [&] {
        EXPECT_EQ(cudaMemcpy(pinned, device, kBytes, cudaMemcpyHostToDevice), cudaSuccess);  // by luck
    };
    const Verdict wrong = check_round_trip(named_wrong, right, "named_wrong");
    EXPECT_FALSE(wrong.ok);
    EXPECT_TRUE(wrong.failure.empty());  // the device is still usable: the battery carries on in the same process
    EXPECT_EQ(wrong.headline(),
              "named_wrong made a cudaMemcpy of 4096 bytes named cudaMemcpyHostToDevice, from device memory to pinned "
              "host memory: its kind names the wrong direction");
}

TEST_F(Harness, DeviceToDeviceCopiesAndTwoDimensionalOnesAreComparedToo) {
    const DeviceBuffer<float> from_buffer(kFloats), to_buffer(kFloats);
    float* const to = to_buffer.get();
    const float* const from = from_buffer.get();
    const FreshMemoryPoisoned check_runs;
    const int start = copies_in_the_wrong_direction();
    ASSERT_EQ(cudaMemcpy2D(to, 64, from, 32, 32, 16, cudaMemcpyDeviceToDevice), cudaSuccess);
    EXPECT_EQ(copies_in_the_wrong_direction(), start);
    // Both sides device memory: the runtime makes the copy whatever it is named (on an H200).
    EXPECT_EQ(cudaMemcpy(to, from, kBytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(copies_in_the_wrong_direction(), start + 1);
    EXPECT_EQ(the_copy_in_the_wrong_direction(start),
              "a cudaMemcpy of 4096 bytes named cudaMemcpyHostToDevice, from device memory to device memory");
    EXPECT_EQ(cudaMemcpy2DAsync(to, 64, from, 32, 32, 16, cudaMemcpyDeviceToHost, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(copies_in_the_wrong_direction(), start + 2);
    EXPECT_EQ(the_copy_in_the_wrong_direction(start + 1),
              "a cudaMemcpy2DAsync of 512 bytes named cudaMemcpyDeviceToHost, from device memory to device memory");
    {
        const CopiesMadeElsewhere at_a_larger_size("at 263x263, a larger size that the leak check calls it with");
        EXPECT_EQ(cudaMemcpy(to, from, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    }
    EXPECT_EQ(cudaMemcpy(to, from, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(the_copy_in_the_wrong_direction(start + 2),
              "a cudaMemcpy of 4 bytes named cudaMemcpyDeviceToHost, from device memory to device memory, at 263x263, "
              "a larger size that the leak check calls it with");
    EXPECT_EQ(the_copy_in_the_wrong_direction(start + 3),
              "a cudaMemcpy of 8 bytes named cudaMemcpyDeviceToHost, from device memory to device memory");
}

// The launch checks of steps 2-5 report through the same function as the round trip. Of two wrong copies it names
// the first, the checked call's own (the calls at larger sizes come after it).
TEST_F(Harness, AWrongCopyIsNamedBeforeWrongElementsAndAfterAFailure) {
    const DeviceBuffer<float> from_buffer(kFloats), to_buffer(kFloats);
    const FreshMemoryPoisoned check_runs;
    const int start = copies_in_the_wrong_direction();
    Verdict right;
    EXPECT_FALSE(report_copies_in_the_wrong_direction(start, "launch", right));
    EXPECT_TRUE(right.ok);

    ASSERT_EQ(cudaMemcpy(to_buffer.get(), from_buffer.get(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(to_buffer.get(), from_buffer.get(), 4, cudaMemcpyDeviceToHost), cudaSuccess);
    Verdict wrong_elements;
    wrong_elements.ok = false;
    wrong_elements.wrong = 3;
    wrong_elements.checked = 8;
    EXPECT_TRUE(report_copies_in_the_wrong_direction(start, "launch", wrong_elements));
    EXPECT_EQ(wrong_elements.headline(),
              "launch made a cudaMemcpy of 4096 bytes named cudaMemcpyHostToDevice, from device memory to device "
              "memory: its kind names the wrong direction");
    EXPECT_EQ(wrong_elements.hint.rfind("The kind says which way the bytes go", 0), 0u) << wrong_elements.hint;

    Verdict failed;
    failed.set_failure("the kernel failed while running", "make sanitize names the line");
    EXPECT_TRUE(report_copies_in_the_wrong_direction(start, "launch", failed));
    EXPECT_EQ(failed.headline(), "the kernel failed while running");  // the device may be unusable: it leads
    EXPECT_EQ(failed.hint,
              "make sanitize names the line. Also, launch made a cudaMemcpy of 4096 bytes named "
              "cudaMemcpyHostToDevice, from device memory to device memory: its kind names the wrong direction");
}
