#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "verify/matrix_data.hpp"

using namespace workshop;

TEST(MatrixData, RandomValuesAreReproducibleAndSeeded) {
    std::vector<float> a(1000), b(1000), c(1000);
    fill_random(a.data(), a.size(), 42);
    fill_random(b.data(), b.size(), 42);
    fill_random(c.data(), c.size(), 43);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_EQ(a[17], random_value(42, 17));
}

TEST(MatrixData, RandomValuesSpanMinusOneToOneWithoutRepeatsToSpeakOf) {
    std::vector<float> v(1 << 16);
    fill_random(v.data(), v.size(), 3);
    float lo = 1, hi = -1;
    for (float x : v) {
        ASSERT_GE(x, -1.0f);
        ASSERT_LT(x, 1.0f);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    EXPECT_LT(lo, -0.99f);
    EXPECT_GT(hi, 0.99f);
    // Distinct values matter: a transpose that swaps two elements must show.
    EXPECT_GT(std::set<float>(v.begin(), v.end()).size(), v.size() * 99 / 100);
}

TEST(MatrixData, InputsAreNotSymmetric) {
    // A symmetric input would hide a transpose that copies.
    const int n = 64;
    std::vector<float> m(n * n);
    fill_random(m.data(), m.size(), 9);
    int symmetric_pairs = 0;
    for (int r = 0; r < n; ++r)
        for (int c = r + 1; c < n; ++c) symmetric_pairs += m[r * n + c] == m[c * n + r];
    EXPECT_LT(symmetric_pairs, 3);
}

TEST(MatrixData, PoisonCoversEveryElementAcrossTheThreadsChunksAndNoMore) {
    const size_t n = (size_t{1} << 21) + 3;  // two whole chunks of 2^20 floats and a few more
    HostMatrix v(n + 1);
    std::fill(v.begin(), v.end(), 1.0f);
    fill_poison(v.data(), n);
    EXPECT_EQ(std::count_if(v.begin(), v.begin() + n, [](float x) { return is_poison(x); }), static_cast<long>(n));
    EXPECT_EQ(v[n], 1.0f);
}

TEST(MatrixData, PoisonIsNaN) {
    std::vector<float> v(10, 1.0f);
    fill_poison(v.data(), v.size());
    for (float x : v) EXPECT_TRUE(std::isnan(x) && is_poison(x));
    // The GPU's arithmetic turns any NaN into the canonical one, never the poison, so a NaN the kernel stored is
    // told from a store that never happened.
    EXPECT_FALSE(is_poison(std::numeric_limits<float>::quiet_NaN()));
    // Shared memory's poison is another NaN, which neither the output's poison nor arithmetic gives.
    float shared;
    std::memcpy(&shared, &kSharedPoisonBits, sizeof shared);
    EXPECT_TRUE(std::isnan(shared) && is_shared_poison(shared) && !is_poison(shared));
    EXPECT_FALSE(is_shared_poison(v[0]));
    EXPECT_FALSE(is_shared_poison(std::numeric_limits<float>::quiet_NaN()));
    const uint32_t gpu_nan = 0x7FFFFFFFu;  // what a GPU's arithmetic gives for any NaN
    float computed;
    std::memcpy(&computed, &gpu_nan, sizeof computed);
    EXPECT_FALSE(is_shared_poison(computed) || is_poison(computed));
    // New device memory's poison is a third NaN, none of the others.
    float fresh;
    std::memcpy(&fresh, &kFreshPoisonBits, sizeof fresh);
    EXPECT_TRUE(std::isnan(fresh) && is_fresh_poison(fresh));
    EXPECT_FALSE(is_poison(fresh) || is_shared_poison(fresh));
    EXPECT_FALSE(is_fresh_poison(v[0]) || is_fresh_poison(shared) || is_fresh_poison(computed));
    // A word that a copy filled only in part (its first byte, here) still counts as new memory's.
    unsigned char bytes[4];
    std::memcpy(bytes, &kFreshPoisonBits, sizeof bytes);
    bytes[0] = 0x3A;
    float partly;
    std::memcpy(&partly, bytes, sizeof partly);
    EXPECT_TRUE(std::isnan(partly) && is_fresh_poison(partly));
    // The device poison writes 0xFF bytes; make sure that bit pattern is a NaN.
    uint32_t bits = 0xFFFFFFFFu;
    float f;
    std::memcpy(&f, &bits, 4);
    EXPECT_TRUE(std::isnan(f));
}
