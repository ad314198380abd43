// The matmul battery on the GPU for the step linked beside it: NaN-poisoned output within the K-scaled tolerance,
// guard zones around every matrix, and misaligned pointers on the shapes that ask for them.
#include "gpu_test_support.hpp"
#include "check/shapes.hpp"
#include "check/step_checks.hpp"

using namespace workshop;

using MatmulBattery = GpuTestWithParam<MatmulShape>;

TEST_P(MatmulBattery, KernelOutputMatchesTheReference) {
    const MatmulShape s = GetParam();
    const CheckResult r = check_matmul_on_device(s.M, s.N, s.K, 1234, {s.misalign, true});
    if (WORKSHOP_STEP == 1 && !r.launched_kernel())
        GTEST_SKIP() << "step 1's matmul_on_device launches no kernel yet (its TODO)";
    EXPECT_TRUE(r.verdict.ok) << r.verdict.summary();
}

#ifdef WORKSHOP_HOST_API
TEST_P(MatmulBattery, RoundTripFromHostMatchesTheReference) {
    const MatmulShape s = GetParam();
    const Verdict v = check_matmul_from_host(s.M, s.N, s.K, 4321);
    EXPECT_TRUE(v.ok) << v.summary();
}
#endif

INSTANTIATE_TEST_SUITE_P(Shapes, MatmulBattery, ::testing::ValuesIn(matmul_battery()), ShapeName{});
