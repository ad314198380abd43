// Verification with a diagnosis. A student whose kernel is wrong learns where (the first bad element), how much
// (how many are wrong) and, where the pattern says something, what probably went wrong.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace workshop {

struct Mismatch {
    int64_t row = -1, col = -1;  // in the output matrix
    double expected = 0, actual = 0;
    bool from_unset_shared = false;      // actual is shared memory's poison (kSharedPoisonBits)
    bool from_fresh_allocation = false;  // actual is new memory's poison (kFreshPoisonBits)
};

// Words of a guard zone (the canaries around a matrix) that a kernel changed.
struct OutsideWrites {
    int64_t before = 0, after = 0;
    bool any() const { return before + after > 0; }
};

// What one output element came out as, for the map of a wrong answer (report/wrong_answer_map.hpp). The order is
// the order of precedence: a cell of the map that stands for several elements shows the last of these that any of
// them is.
enum class ElementState : uint8_t {
    Right,      // within the tolerance
    Off,        // finite and wrong, but by little next to the values (a missed term of a sum, say)
    Wrong,      // finite and wrong
    NaN,        // a NaN or an Inf the kernel stored
    Unwritten,  // still holding the poison: no thread wrote it
};

// Classifies an element. `tolerance` is the check's own for it; "off" means wrong by at most `off_fraction` of
// `largest_expected` (a skipped term of a long sum), so the map does not paint those like a wrong index.
ElementState classify_element(float actual, float expected, double tolerance, bool poison, double largest_expected,
                              double off_fraction = 0.05);

// Every element of a wrong output, as the map draws it: row by row, rows x cols (the transpose's output, cols x
// rows of its input; the matmul's C, M x N), with the extent of one block of the launch in output elements where
// the check knows it (0: not known).
struct ElementStates {
    int64_t rows = 0, cols = 0;
    std::vector<ElementState> states;
    int64_t block_rows = 0, block_cols = 0;
};

// Outputs up to this many elements get their ElementStates when wrong (a byte each): every battery shape and the
// programs' default sizes.
constexpr int64_t kMostElementsMapped = int64_t{1} << 26;

struct Verdict;
// A verdict that fails with every element of its rows x cols output right (writes outside it, say) gets states all
// Right, so the map can show where the output ends; nothing where it has states already, or is too large to map.
void map_a_right_output(Verdict& v, int64_t rows, int64_t cols);

struct Verdict {
    bool ok = true;
    int64_t checked = 0;
    int64_t wrong = 0;                  // outside tolerance, NaN or Inf
    int64_t unwritten = 0;              // still holding the poison
    int64_t written_nan = 0;            // a NaN the kernel stored (not the poison)
    int64_t from_unset_shared = 0;      // shared memory's poison, stored from a slot that no thread wrote
    int64_t from_fresh_allocation = 0;  // new memory's poison, from a buffer allocated and never written
    Mismatch first;                     // first wrong element, reading the output row by row
    std::string hint;                   // what the pattern suggests; empty when nothing stands out
    double max_error = 0;               // largest |actual - expected| among finite values

    std::string failure;              // the launch failed or the kernel faulted: what CUDA said, where
    OutsideWrites outside;            // around the output
    int64_t input_words_changed = 0;  // in the inputs or their guard zones
    std::string leak;                 // memory that further calls of the step's function left allocated
    std::string misuse;               // a call against CUDA's rules that happened to work (copy_directions.hpp)
    int64_t changed_by_relaunch = 0;  // elements a second launch on the same inputs left different
    std::string wrong_on;             // "right on the first launch, wrong on the third": a later launch was wrong
                                      // (or wrote outside its output), and the headline says which
    // Where elements are wrong and the output has at most kMostElementsMapped: each element's state, shared by the
    // copies of this verdict.
    std::shared_ptr<ElementStates> element_states;

    // What went wrong, in one phrase: the failure, else writes outside the output, else a changed input, else a
    // leak, else a misused call, else the wrong elements.
    std::string headline() const;
    // One line: "PASS", or "FAIL: <headline>. <hint> <anything else found>".
    std::string summary() const;

    // Folds in what the guard zones showed; a changed canary fails the verdict.
    void add_guard_report(const OutsideWrites& output, int64_t input_words);
    // The launch or the kernel failed: nothing else about the output can be known.
    void set_failure(const std::string& what, const std::string& hint_text);
    // The output was right, but the calls leave memory behind; the device is still usable.
    void set_leak(const std::string& what, const std::string& hint_text);
    // A call broke one of CUDA's rules and worked by luck; the device is still usable. Named before any wrong
    // element: it is the likelier cause. After a failure, writes outside the output, a changed input or a leak,
    // which the headline names first, their hint ends with "Also, <what>" instead.
    void set_misuse(const std::string& what, const std::string& hint_text);
    // A wrong answer is worth a second launch when the kernel finished and stayed inside its output: its output
    // (`first`) against the second one, bit for bit. An answer that changes between two launches on the same
    // inputs is no wrong formula but a value read before it is set, or a race; the headline says so, and the hint
    // gives way to one about that. With elements never written as well, threads most likely store to one element
    // and none to others, which is a wrong index (a size mixed up, say) that races: the hint says that instead.
    bool worth_a_second_launch() const;
    // A failure, a leak or a misused call: something the calls did, with a hint of its own, explains the verdict.
    bool a_call_explains_it() const { return !failure.empty() || !leak.empty() || !misuse.empty(); }
    void compare_second_launch(const float* first, const float* second, size_t count);
};

// What a headline says of an answer that changed between two launches, and, when some elements were never written
// either, what it adds; the battery reads both.
constexpr const char* kChangedByRelaunch = "in a second launch on the same inputs";
constexpr const char* kNeverWrittenEither = "were never written";
// Where elements hold shared memory's poison: after the first wrong element's value, and in what a changed answer
// adds. Such elements change from launch to launch (a block finds what the block before it on the SM left there),
// so the battery reads no wrong size from the change.
constexpr const char* kFromUnsetShared = "from shared memory that no thread wrote";
// Where the first wrong element holds new memory's poison (device or pinned host memory), after its value.
constexpr const char* kFromFreshAllocation = "from memory that nothing wrote after it was allocated";
// How a FAIL of a program that made a stream with cudaStreamNonBlocking begins its note; the battery reads it too.
constexpr const char* kNonBlockingStreamMade = "this program made a stream with cudaStreamNonBlocking";

// `out` (cols x rows, row-major) against the transpose of `in` (rows x cols, row-major), bit for bit.
Verdict verify_transpose(const float* in, const float* out, int rows, int cols);

// Largest |C - reference| allowed for a product over K terms of inputs bounded by max_abs_a and max_abs_b.
// Rounding errors of a float sum grow with the number of terms and the size of the terms, so the tolerance does
// too; it is tight enough that a skipped partial K tile or TF32 inputs fail it.
double matmul_tolerance(int K, double max_abs_a, double max_abs_b);

// `C` against `reference`, both M x N column-major.
Verdict verify_matmul(const float* C, const double* reference, int M, int N, double tolerance);
Verdict verify_matmul(const float* C, const float* reference, int M, int N, double tolerance);

double max_abs(const float* data, int64_t count);

}  // namespace workshop
