#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <limits>
#include <utility>
#include <vector>

#include "verify/cpu_reference.hpp"
#include "verify/matrix_data.hpp"
#include "verify/verify.hpp"

using namespace workshop;

namespace {

struct TransposeCase {
    int rows, cols;
    std::vector<float> in, out;
    TransposeCase(int r, int c) : rows(r), cols(c), in(size_t(r) * c), out(size_t(r) * c) {
        fill_random(in.data(), in.size(), 7);
        transpose_cpu(in.data(), out.data(), rows, cols);
    }
    Verdict verify() const { return verify_transpose(in.data(), out.data(), rows, cols); }
};

// `bits` in `count` elements from `first`: one of the NaNs the checks fill memory with, as a kernel that moved it
// into its output would leave it.
void put_bits(float* first, size_t count, uint32_t bits) {
    for (size_t i = 0; i < count; ++i) std::memcpy(first + i, &bits, sizeof(float));
}
// What a kernel stores from a slot of a shared tile that no thread wrote.
void put_shared_poison(float* first, size_t count) { put_bits(first, count, kSharedPoisonBits); }

}  // namespace

TEST(VerifyTranspose, AcceptsACorrectTranspose) {
    for (auto [r, c] : {std::pair{1, 1}, {1, 17}, {17, 1}, {31, 33}, {300, 200}}) {
        const TransposeCase t(r, c);
        EXPECT_TRUE(t.verify().ok) << r << "x" << c;
    }
}

TEST(VerifyTranspose, CatchesASingleWrongElement) {
    TransposeCase t(31, 33);
    t.out[5 * 31 + 7] += 1.0f;  // output row 5, col 7
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 1);
    EXPECT_EQ(v.first.row, 5);
    EXPECT_EQ(v.first.col, 7);
    EXPECT_NE(v.summary().find("(row 5, col 7)"), std::string::npos) << v.summary();
}

TEST(VerifyTranspose, TellsThePoisonFromAComputedNaN) {
    TransposeCase t(8, 8);
    fill_poison(&t.out[10], 1);
    t.out[20] = std::numeric_limits<float>::quiet_NaN();
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 2);
    EXPECT_EQ(v.unwritten, 1);
    EXPECT_EQ(v.written_nan, 1);
}

TEST(VerifyTranspose, SaysWhenEveryNaNWasStoredByTheKernel) {
    TransposeCase t(40, 50);
    for (auto& x : t.out) x = std::numeric_limits<float>::quiet_NaN();  // what C += ... on the poison gives
    const Verdict v = t.verify();
    EXPECT_EQ(v.unwritten, 0);
    EXPECT_NE(v.hint.find("NaNs the kernel stored"), std::string::npos) << v.hint;
    // A NaN read from memory the code allocated and never wrote: the checks fill new allocations with NaN.
    EXPECT_NE(v.hint.find("read memory it allocated and never wrote"), std::string::npos) << v.hint;
    // Or from a slot of a shared tile no thread wrote: the checks fill shared memory with NaN too.
    EXPECT_NE(v.hint.find("read slots of a shared tile that no thread wrote"), std::string::npos) << v.hint;
}

// A store from a slot of a shared tile that no thread wrote moves shared memory's poison into the output: named
// as such in the headline and the hint, and told from an element never written and from a NaN computed.
TEST(VerifyTranspose, NamesAStoreFromSharedMemoryThatNoThreadWrote) {
    TransposeCase t(40, 50);
    put_shared_poison(&t.out[3], 40);
    fill_poison(&t.out[100], 2);
    t.out[200] = std::numeric_limits<float>::quiet_NaN();
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 43);
    EXPECT_EQ(v.from_unset_shared, 40);
    EXPECT_EQ(v.unwritten, 2);
    EXPECT_EQ(v.written_nan, 1);
    EXPECT_TRUE(v.first.from_unset_shared);
    EXPECT_NE(v.summary().find("got nan from shared memory that no thread wrote"), std::string::npos) << v.summary();
    EXPECT_NE(v.hint.find("40 elements hold the NaN the check fills shared memory with"), std::string::npos) << v.hint;
    EXPECT_NE(v.hint.find("bounds tests agree"), std::string::npos) << v.hint;

    // Only the first wrong element decides the headline's words.
    fill_poison(&t.out[0], 1);
    EXPECT_EQ(t.verify().summary().find("from shared memory"), std::string::npos) << t.verify().summary();
}

// A value from a new buffer that nothing wrote (step 1's input copied in short, say) moves new memory's
// poison into the output: named as such, not as an element never written, and pointed at the copy in.
TEST(VerifyTranspose, NamesAValueFromNewMemoryThatNothingWrote) {
    TransposeCase t(40, 50);
    put_bits(&t.out[7], 30, kFreshPoisonBits);
    fill_poison(&t.out[100], 2);
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 32);
    EXPECT_EQ(v.from_fresh_allocation, 30);
    EXPECT_EQ(v.unwritten, 2);
    EXPECT_EQ(v.from_unset_shared + v.written_nan, 0);
    EXPECT_TRUE(v.first.from_fresh_allocation);
    EXPECT_NE(v.summary().find("got nan from memory that nothing wrote after it was allocated"), std::string::npos)
        << v.summary();
    EXPECT_NE(v.hint.find("30 elements hold the NaN the check fills new memory with"), std::string::npos) << v.hint;
    EXPECT_NE(v.hint.find("Was the whole input copied into each buffer on its way to the kernel"), std::string::npos)
        << v.hint;

    // An input copied in a row short leaves only the answer's last column wrong: still this hint, not the edges'.
    TransposeCase short_copy(300, 200);  // the answer is 200 x 300
    for (int r = 0; r < 200; ++r) put_bits(&short_copy.out[r * 300 + 299], 1, kFreshPoisonBits);
    EXPECT_NE(short_copy.verify().hint.find("fills new memory with"), std::string::npos) << short_copy.verify().hint;

    // Shared memory's NaN names its own cause first; the headline still follows the first wrong element.
    put_shared_poison(&t.out[500], 1);
    const Verdict both = t.verify();
    EXPECT_NE(both.hint.find("fills shared memory with"), std::string::npos) << both.hint;
    EXPECT_NE(both.summary().find("from memory that nothing wrote"), std::string::npos) << both.summary();
}

TEST(VerifyTranspose, SaysWhenNothingWasWritten) {
    TransposeCase t(40, 50);
    fill_poison(t.out.data(), t.out.size());
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 40 * 50);
    EXPECT_NE(v.hint.find("Nothing was written"), std::string::npos) << v.hint;
}

TEST(VerifyTranspose, RecognisesACopyInsteadOfATranspose) {
    TransposeCase t(300, 200);
    t.out = t.in;
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.hint.find("copy of the input"), std::string::npos) << v.hint;
}

TEST(VerifyTranspose, RecognisesAMissingLastRowAndColumn) {
    // Output is cols x rows = 500 x 400. Leave its last row and last column unwritten, as a grid that rounds
    // its block count down would.
    TransposeCase t(400, 500);
    fill_poison(&t.out[size_t(499) * 400], 400);
    for (int r = 0; r < 500; ++r) fill_poison(&t.out[size_t(r) * 400 + 399], 1);
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 400 + 500 - 1);
    EXPECT_NE(v.hint.find("last rows/columns were never written"), std::string::npos) << v.hint;
}

TEST(VerifyTranspose, RecognisesWrongValuesOnlyAtTheEdges) {
    TransposeCase t(400, 500);
    t.out[size_t(499) * 400 + 3] = 42.0f;
    const Verdict v = t.verify();
    EXPECT_NE(v.hint.find("Only the edges are wrong"), std::string::npos) << v.hint;
}

// The scan reads bands of rows in parallel; what it reports must not depend on which band finishes first.
TEST(VerifyTranspose, TheFirstWrongElementIsTheFirstInRowOrder) {
    TransposeCase t(300, 200);  // the output is 200 x 300: several bands of rows
    const auto out_at = [&](int r, int c) -> float& { return t.out[size_t(r) * t.rows + c]; };
    out_at(190, 5) = 2.0f;                                      // a late band
    out_at(40, 299) = 2.0f;                                     // an early band, last column
    out_at(40, 7) = 2.0f;                                       // the same row, earlier column: the first
    out_at(33, 250) = std::numeric_limits<float>::quiet_NaN();  // the first of all, a NaN the kernel stored
    const Verdict v = t.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 4);
    EXPECT_EQ(v.written_nan, 1);
    EXPECT_EQ(v.first.row, 33);
    EXPECT_EQ(v.first.col, 250);
    double largest = 0;  // the NaN has no error to measure; the three 2.0s do
    for (const auto& [r, c] : {std::pair{190, 5}, std::pair{40, 299}, std::pair{40, 7}})
        largest = std::max(largest, std::fabs(2.0 - t.in[size_t(c) * t.cols + r]));
    EXPECT_DOUBLE_EQ(v.max_error, largest);
}

TEST(MatmulTolerance, GrowsWithKAndWithTheMagnitudes) {
    EXPECT_LT(matmul_tolerance(16, 1, 1), matmul_tolerance(4096, 1, 1));
    EXPECT_DOUBLE_EQ(matmul_tolerance(4096, 1, 1) * 256, matmul_tolerance(4096 * 256, 1, 1));
    EXPECT_DOUBLE_EQ(matmul_tolerance(100, 2, 1), 2 * matmul_tolerance(100, 1, 1));
    EXPECT_DOUBLE_EQ(matmul_tolerance(100, 1, 3), 3 * matmul_tolerance(100, 1, 1));
}

namespace {

struct MatmulCase {
    int M, N, K;
    std::vector<float> A, B, C;
    std::vector<double> ref;
    MatmulCase(int m, int n, int k)
        : M(m), N(n), K(k), A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n), ref(C.size()) {
        fill_random(A.data(), A.size(), 1);
        fill_random(B.data(), B.size(), 2);
        matmul_cpu(A.data(), B.data(), C.data(), M, N, K);
        matmul_reference(A.data(), B.data(), ref.data(), M, N, K);
    }
    Verdict verify() const {
        return verify_matmul(C.data(), ref.data(), M, N,
                             matmul_tolerance(K, max_abs(A.data(), A.size()), max_abs(B.data(), B.size())));
    }
};

}  // namespace

TEST(VerifyMatmul, AcceptsAFloatProductAtEveryShape) {
    for (auto [m, n, k] : {std::tuple{1, 1, 1}, {97, 101, 103}, {64, 1, 2048}, {1, 64, 4096}, {33, 17, 1}}) {
        const MatmulCase c(m, n, k);
        EXPECT_TRUE(c.verify().ok) << m << "x" << n << "x" << k << ": " << c.verify().summary();
    }
}

TEST(VerifyMatmul, CatchesASkippedPartialKTile) {
    // K = 100 with tiles of 32: a kernel that drops the last partial tile sums only k < 96.
    MatmulCase c(37, 41, 100);
    for (int j = 0; j < c.N; ++j)
        for (int i = 0; i < c.M; ++i) {
            float sum = 0;
            for (int k = 0; k < 96; ++k) sum += c.A[i + size_t(k) * c.M] * c.B[k + size_t(j) * c.K];
            c.C[i + size_t(j) * c.M] = sum;
        }
    const Verdict v = c.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_GT(v.wrong, c.M * c.N / 2);
}

TEST(VerifyMatmul, CatchesTf32RoundedInputs) {
    // TF32 keeps 10 mantissa bits: the error it brings must be beyond the FP32 tolerance at K = 1024.
    MatmulCase c(64, 64, 1024);
    auto tf32 = [](float x) {
        uint32_t bits;
        std::memcpy(&bits, &x, 4);
        bits = (bits + 0x1000u) & ~0x1FFFu;
        std::memcpy(&x, &bits, 4);
        return x;
    };
    std::vector<float> a = c.A, b = c.B;
    for (auto& x : a) x = tf32(x);
    for (auto& x : b) x = tf32(x);
    matmul_cpu(a.data(), b.data(), c.C.data(), c.M, c.N, c.K);
    EXPECT_FALSE(c.verify().ok);
}

TEST(VerifyMatmul, NaNAndInfNeverPass) {
    MatmulCase c(8, 8, 8);
    c.C[3] = std::numeric_limits<float>::infinity();
    c.C[4] = std::numeric_limits<float>::quiet_NaN();
    const Verdict v = c.verify();
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.wrong, 2);
    EXPECT_EQ(v.first.row, 3);
    EXPECT_EQ(v.first.col, 0);
}

TEST(VerifyMatmul, NamesTheFirstBadElementInColumnMajorOrder) {
    MatmulCase c(10, 12, 5);
    c.C[7 + 9 * 10] += 0.5f;  // (row 7, col 9)
    const Verdict v = c.verify();
    EXPECT_EQ(v.wrong, 1);
    EXPECT_EQ(v.first.row, 7);
    EXPECT_EQ(v.first.col, 9);
}

TEST(Verdict, WritesOutsideTheOutputFailEvenWhenTheOutputIsRight) {
    const TransposeCase t(31, 33);
    Verdict v = t.verify();
    ASSERT_TRUE(v.ok);
    v.add_guard_report({0, 33}, 0);
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.headline(), "wrote outside the output: 33 words after its end were changed");
    EXPECT_NE(v.hint.find("bounds test"), std::string::npos) << v.hint;
}

TEST(Verdict, ReportsBothSidesOfTheGuardsAndTheWrongElementsToo) {
    TransposeCase t(31, 33);
    t.out[7] += 1.0f;
    Verdict v = t.verify();
    v.add_guard_report({2, 5}, 0);
    EXPECT_EQ(v.headline(),
              "wrote outside the output: 2 words before its start and 5 words after its end were changed");
    EXPECT_NE(v.summary().find("Also 1 of 1023 wrong"), std::string::npos) << v.summary();
}

TEST(Verdict, AChangedInputFails) {
    const TransposeCase t(8, 8);
    Verdict v = t.verify();
    v.add_guard_report({}, 3);
    EXPECT_FALSE(v.ok);
    EXPECT_NE(v.headline().find("changed the input: 3 words"), std::string::npos) << v.headline();
}

// A later launch (or one at another size) that writes outside the output or changes the input: the headline says
// which launch, as it does for wrong elements.
TEST(Verdict, WhichLaunchWasWrongComesFirstForEveryKindOfWrong) {
    const TransposeCase t(8, 8);
    Verdict outside = t.verify(), input = t.verify();
    outside.wrong_on = input.wrong_on = "right on the first launch, wrong on the third at the same size";
    outside.add_guard_report({0, 4}, 0);
    input.add_guard_report({}, 3);
    EXPECT_EQ(outside.headline(),
              "right on the first launch, wrong on the third at the same size: wrote outside the "
              "output: 4 words after its end were changed");
    EXPECT_EQ(input.headline(),
              "right on the first launch, wrong on the third at the same size: changed the input: 3 "
              "words of it (or around it) differ after the run");
}

TEST(Verdict, CleanGuardsChangeNothing) {
    const TransposeCase t(8, 8);
    Verdict v = t.verify();
    v.add_guard_report({}, 0);
    EXPECT_TRUE(v.ok);
    EXPECT_EQ(v.summary(), "PASS");
}

TEST(Verdict, AFailureComesFirst) {
    Verdict v;
    v.set_failure("the launch failed: cudaErrorInvalidConfiguration", "round up");
    EXPECT_FALSE(v.ok);
    EXPECT_EQ(v.summary(), "FAIL: the launch failed: cudaErrorInvalidConfiguration. round up");
}

// A leak is a verdict of its own: the output was right, so it names the leak, not a wrong element.
TEST(Verdict, ALeakFailsARightOutput) {
    const TransposeCase t(8, 8);
    Verdict v = t.verify();
    ASSERT_TRUE(v.ok);
    v.set_leak("leak: every call of transpose_on_device leaves device memory allocated", "free it");
    EXPECT_FALSE(v.ok);
    EXPECT_TRUE(v.failure.empty());  // the device is still usable: the battery carries on in the same process
    EXPECT_EQ(v.summary(), "FAIL: leak: every call of transpose_on_device leaves device memory allocated. free it");
}

// A misused call that worked by luck is a verdict of its own, after a leak and before any wrong element: the device
// is still usable, and no second launch is asked for.
TEST(Verdict, AMisusedCallComesAfterALeakAndBeforeTheWrongElements) {
    TransposeCase t(8, 8);
    t.out[3] += 1.0f;
    Verdict v = t.verify();
    ASSERT_TRUE(v.worth_a_second_launch());
    v.set_misuse("f made a cudaMemcpy of 4 bytes named cudaMemcpyHostToDevice: its kind names the wrong direction",
                 "match the kind");
    EXPECT_FALSE(v.ok);
    EXPECT_TRUE(v.failure.empty());
    EXPECT_FALSE(v.worth_a_second_launch());
    EXPECT_EQ(v.summary(),
              "FAIL: f made a cudaMemcpy of 4 bytes named cudaMemcpyHostToDevice: its kind names the "
              "wrong direction. match the kind");
    v.set_leak("leak: f leaves device memory allocated", "free it");
    EXPECT_EQ(v.headline(), "leak: f leaves device memory allocated");
}

// An answer that changes between two launches on the same inputs is read before it is set, or raced for: the
// headline counts the elements that changed, bit for bit, and the hint says what to look for instead of what the
// pattern of wrong elements suggests.
TEST(Verdict, ASecondLaunchThatChangesTheAnswerIsNamed) {
    TransposeCase t(8, 8);
    t.out[3] += 1.0f;
    Verdict v = t.verify();
    ASSERT_TRUE(v.worth_a_second_launch());
    std::vector<float> second = t.out;
    second[3] += 1.0f;
    second[9] = -second[9];
    v.compare_second_launch(t.out.data(), second.data(), t.out.size());
    EXPECT_EQ(v.changed_by_relaunch, 2);
    EXPECT_NE(v.headline().find("; 2 elements differ in a second launch on the same inputs"), std::string::npos)
        << v.headline();
    EXPECT_NE(v.hint.find("read before this launch sets it"), std::string::npos) << v.hint;
    second[9] = -second[9];
    v.compare_second_launch(t.out.data(), second.data(), t.out.size());
    EXPECT_NE(v.headline().find("; 1 element differs in a second launch"), std::string::npos) << v.headline();
    EXPECT_EQ(v.headline().find("never written"), std::string::npos) << v.headline();
}

// Elements never written as well: threads storing to one element, and none to others, race for it. That is an
// index gone wrong, and the headline and hint say so.
TEST(Verdict, AChangingAnswerWithElementsNeverWrittenPointsAtTheIndex) {
    TransposeCase t(8, 8);
    std::vector<float> first = t.out, second = t.out;
    fill_poison(&first[60], 4);
    fill_poison(&second[60], 4);
    first[1] = first[2], second[1] = second[3];
    Verdict v = verify_transpose(t.in.data(), first.data(), 8, 8);
    ASSERT_EQ(v.unwritten, 4);
    v.compare_second_launch(first.data(), second.data(), first.size());
    EXPECT_NE(v.headline().find("; 1 element differs in a second launch on the same inputs, and 4 were never written"),
              std::string::npos)
        << v.headline();
    EXPECT_NE(v.hint.find("Check the store's index"), std::string::npos) << v.hint;
}

// Slots of a shared tile that no thread wrote hold the NaN only in the blocks that run first on an SM; later
// blocks find what earlier ones left, so such a kernel changes its answer between launches. The hint about those
// slots stands, with why the answer changes, and the headline says how many came from them.
TEST(Verdict, AChangingAnswerFromUnsetSharedSlotsKeepsTheirHint) {
    TransposeCase t(8, 8);
    std::vector<float> first = t.out, second = t.out;
    put_shared_poison(&first[10], 2);
    put_shared_poison(&second[10], 2);
    first[12] = 5.0f, second[12] = 6.0f;  // what a block before left in the slot, another each launch
    Verdict v = verify_transpose(t.in.data(), first.data(), 8, 8);
    ASSERT_EQ(v.from_unset_shared, 2);
    ASSERT_TRUE(v.worth_a_second_launch());
    v.compare_second_launch(first.data(), second.data(), first.size());
    EXPECT_NE(v.headline().find("; 1 element differs in a second launch on the same inputs, and 2 came from shared "
                                "memory that no thread wrote"),
              std::string::npos)
        << v.headline();
    EXPECT_NE(v.hint.find("2 elements hold the NaN the check fills shared memory with"), std::string::npos) << v.hint;
    EXPECT_NE(v.hint.find("so another launch gives another answer"), std::string::npos) << v.hint;
}

TEST(Verdict, TheSameWrongAnswerTwiceKeepsItsHint) {
    TransposeCase t(8, 8);
    fill_poison(t.out.data(), t.out.size());
    Verdict v = t.verify();
    const std::string hint = v.hint;
    ASSERT_FALSE(hint.empty());
    v.compare_second_launch(t.out.data(), t.out.data(), t.out.size());
    EXPECT_EQ(v.changed_by_relaunch, 0);
    EXPECT_EQ(v.hint, hint);
    EXPECT_EQ(v.headline().find("second launch"), std::string::npos) << v.headline();
}

// Only a kernel that finished, stayed inside its output and left its inputs alone is launched again: after a
// fault the device is unusable, and a kernel that writes elsewhere has a headline of its own.
TEST(Verdict, OnlyAWrongAnswerIsWorthASecondLaunch) {
    TransposeCase t(8, 8);
    EXPECT_FALSE(t.verify().worth_a_second_launch());
    t.out[0] += 1.0f;
    Verdict v = t.verify();
    EXPECT_TRUE(v.worth_a_second_launch());
    v.add_guard_report({0, 1}, 0);
    EXPECT_FALSE(v.worth_a_second_launch());
    Verdict failed = t.verify();
    failed.set_failure("the kernel failed while running", "");
    EXPECT_FALSE(failed.worth_a_second_launch());
}
