// The transpose battery on the GPU for the step linked beside it: exact comparison after NaN poisoning, guard
// zones around every matrix, and misaligned pointers on the shapes that ask for them.
#include "gpu_test_support.hpp"
#include "check/shapes.hpp"
#include "check/step_checks.hpp"

using namespace workshop;

using TransposeBattery = GpuTestWithParam<TransposeShape>;

TEST_P(TransposeBattery, KernelOutputIsTheExactTranspose) {
    const TransposeShape s = GetParam();
    const CheckResult r = check_transpose_on_device(s.rows, s.cols, 1234, {s.misalign, true});
    if (WORKSHOP_STEP == 1 && !r.launched_kernel())
        GTEST_SKIP() << "step 1's transpose_on_device launches no kernel yet (its TODO)";
    EXPECT_TRUE(r.verdict.ok) << r.verdict.summary();
}

#ifdef WORKSHOP_HOST_API
TEST_P(TransposeBattery, RoundTripFromHostIsTheExactTranspose) {
    const TransposeShape s = GetParam();
    const Verdict v = check_transpose_from_host(s.rows, s.cols, 4321);
    EXPECT_TRUE(v.ok) << v.summary();
}
#endif

// The check after the timing: a launch whose output has the bits of the one judged right is right; one whose output
// differs is judged in full. Here the input is changed on the device, so the next output differs and is wrong.
using TransposeCheckAfterTiming = GpuTest;

TEST_F(TransposeCheckAfterTiming, SameBitsAreRightAndOtherBitsAreJudgedAgain) {
    TransposeProblem problem(300, 200, 99, CheckSetup{0, true});
    const CheckResult first = problem.run_checked();
    if (WORKSHOP_STEP == 1 && !first.launched_kernel())
        GTEST_SKIP() << "step 1's transpose_on_device launches no kernel yet (its TODO)";
    ASSERT_TRUE(first.verdict.ok) << first.verdict.summary();
    const CheckResult same = problem.run_checked(FurtherCalls::Skip);
    EXPECT_TRUE(same.verdict.ok) << same.verdict.summary();
    const float changed = 7.0f;
    ASSERT_EQ(cudaMemcpy(problem.d_in() + 1234, &changed, sizeof changed, cudaMemcpyHostToDevice), cudaSuccess);
    const CheckResult other = problem.run_checked(FurtherCalls::Skip);
    EXPECT_FALSE(other.verdict.ok);
    EXPECT_EQ(other.verdict.wrong, 1) << other.verdict.summary();
    EXPECT_EQ(other.verdict.input_words_changed, 1) << other.verdict.summary();
}

INSTANTIATE_TEST_SUITE_P(Shapes, TransposeBattery, ::testing::ValuesIn(transpose_battery()), ShapeName{});
