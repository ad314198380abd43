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

INSTANTIATE_TEST_SUITE_P(Shapes, TransposeBattery, ::testing::ValuesIn(transpose_battery()), ShapeName{});
