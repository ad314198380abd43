#include "verify/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <limits>

#include "verify/matrix_data.hpp"

namespace workshop {

namespace {

std::string describe_wrong(const Verdict& v) {
    const char* from = v.first.from_unset_shared       ? kFromUnsetShared
                       : v.first.from_fresh_allocation ? kFromFreshAllocation
                                                       : nullptr;
    return fmt::format("{} of {} wrong; first at (row {}, col {}): expected {:.7g}, got {:.7g}{}", v.wrong, v.checked,
                       v.first.row, v.first.col, v.first.expected, v.first.actual,
                       from ? fmt::format(" {}", from) : "");
}

std::string describe_outside(const OutsideWrites& o) {
    std::string where;
    if (o.before) where = fmt::format("{} words before its start", o.before);
    if (o.before && o.after) where += " and ";
    if (o.after) where += fmt::format("{} words after its end", o.after);
    return "wrote outside the output: " + where + " were changed";
}

}  // namespace

std::string Verdict::headline() const {
    if (!failure.empty()) return failure;
    const std::string when = wrong_on.empty() ? "" : wrong_on + ": ";  // a launch after the first, or elsewhere
    if (outside.any()) return when + describe_outside(outside);
    if (input_words_changed)
        return when + fmt::format("changed the input: {} words of it (or around it) differ after the run",
                                  input_words_changed);
    if (!leak.empty()) return leak;
    if (!misuse.empty()) return misuse;
    if (!wrong_on.empty()) return when + describe_wrong(*this);
    if (changed_by_relaunch)
        return fmt::format(
            "{}; {} element{} {}{}{}", describe_wrong(*this), changed_by_relaunch,
            changed_by_relaunch == 1 ? " differs" : "s differ", kChangedByRelaunch,
            unwritten ? fmt::format(", and {} {}", unwritten, kNeverWrittenEither) : "",
            from_unset_shared ? fmt::format(", and {} came {}", from_unset_shared, kFromUnsetShared) : "");
    return describe_wrong(*this);
}

std::string Verdict::summary() const {
    if (ok) return "PASS";
    std::string line = "FAIL: " + headline();
    if (!hint.empty()) line += ". " + hint;
    if (failure.empty() && (outside.any() || input_words_changed) && wrong) line += ". Also " + describe_wrong(*this);
    return line;
}

void Verdict::add_guard_report(const OutsideWrites& output, int64_t input_words) {
    outside = output;
    input_words_changed = input_words;
    if (!outside.any() && !input_words) return;
    ok = false;
    // Writes past the end are the common case: a bounds test that lets the threads of a partial tile store.
    if (outside.after && !outside.before)
        hint =
            "A bounds test lets threads past the last row or column store: check the guard on every store, "
            "with < (not <=) against the right dimension";
    else if (outside.any())
        hint = "An index went negative or far off: check how the store's index is computed";
    else
        hint = "Does the kernel store to an input? Check the order of the pointer arguments";
}

void Verdict::set_failure(const std::string& what, const std::string& hint_text) {
    ok = false;
    failure = what;
    hint = hint_text;
}

void Verdict::set_leak(const std::string& what, const std::string& hint_text) {
    ok = false;
    leak = what;
    hint = hint_text;
}

void Verdict::set_misuse(const std::string& what, const std::string& hint_text) {
    ok = false;
    // What headline() names before a misuse is more than the call explains: it keeps the headline and its hint.
    if (!failure.empty() || outside.any() || input_words_changed || !leak.empty()) {
        hint += fmt::format("{}Also, {}", hint.empty() ? "" : ". ", what);
        return;
    }
    misuse = what;
    hint = hint_text;
}

bool Verdict::worth_a_second_launch() const {
    return !ok && wrong > 0 && !outside.any() && !input_words_changed && !a_call_explains_it();
}

void Verdict::compare_second_launch(const float* first, const float* second, size_t count) {
    changed_by_relaunch = 0;
    for (size_t i = 0; i < count; ++i) changed_by_relaunch += std::memcmp(first + i, second + i, sizeof(float)) != 0;
    if (!changed_by_relaunch) return;
    if (unwritten) {
        hint =
            "The same launch on the same inputs gave another answer, and some elements got no store at all: "
            "threads store to the same element (which of them wins changes from launch to launch) and none to "
            "others. Check the store's index: is one size used where another belongs?";
        return;
    }
    if (from_unset_shared) {  // the hint about those slots stands, and explains the change
        hint +=
            " Such a slot holds the NaN only in the blocks that run first on each SM; a block that starts "
            "after another finds what that one left there, so another launch gives another answer";
        return;
    }
    hint =
        "The same launch on the same inputs gave another answer, so the arithmetic is not what is wrong: "
        "something is read before this launch sets it (sums not started at zero, shared memory read before "
        "every thread has stored its part or before a __syncthreads(), a counter kept from the last launch), "
        "or threads race to write one element";
}

namespace {

// How far from the far edges counts as "the edge": a partial tile is at most this wide in any step.
constexpr int64_t kEdgeBand = 128;

// Rows scanned together: reading a band column by column touches both matrices of a transpose (and a
// column-major product) in runs of contiguous memory, where a row-by-row scan would stride through one of them
// and miss the cache on every element.
constexpr int64_t kBandRows = 32;

bool comes_before(const Mismatch& a, const Mismatch& b) { return a.row < b.row || (a.row == b.row && a.col < b.col); }

// The hint for a wrong answer, from what the scan counted: the cause that explains the most is named first.
// only_edges_wrong: every wrong element lies within kEdgeBand of the far edges of an output larger than that.
std::string hint_for(const Verdict& v, bool only_edges_wrong) {
    if (v.unwritten == v.checked) {
        return "Nothing was written: the output still holds the NaN poison (did the kernel run, and does it store to "
               "the output?)";
    } else if (v.from_unset_shared > 0) {
        // Before the edges' hint: it names the cause, and a guard that skips loads is the usual one.
        return fmt::format(
            "{} elements hold the NaN the check fills shared memory with before each launch: the "
            "kernel stored slots of its shared tile that no thread wrote. Do the load's and the "
            "store's bounds tests agree on which elements exist (the same sizes, the same "
            "comparisons), and is every slot written before a __syncthreads() and read after it?",
            v.from_unset_shared);
    } else if (v.from_fresh_allocation > 0) {
        // Before the edges' hint too: a copy in that stops a row short leaves only an edge of the answer wrong, and
        // that hint would send the student to the kernel's bounds tests.
        return fmt::format(
            "{} elements hold the NaN the check fills new memory with: they came from a buffer "
            "allocated during the call (cudaMalloc, cudaMallocHost) that nothing wrote. Was the "
            "whole input copied into each buffer on its way to the kernel (memcpy's and "
            "cudaMemcpy's counts are in bytes; the destination comes first), and does the kernel "
            "store every element of its output?",
            v.from_fresh_allocation);
    } else if (only_edges_wrong) {
        return v.unwritten == v.wrong
                   ? "Only the last rows/columns were never written: does the grid round its block count up, so "
                     "partial tiles are covered?"
                   : "Only the edges are wrong: check the bounds tests of the partial tiles at the far edges";
    } else if (v.unwritten > 0) {
        return fmt::format("{} elements were never written (still holding the poison)", v.unwritten);
    } else if (v.written_nan > 0) {
        return fmt::format(
            "{} elements are NaNs the kernel stored (not the poison): does it read the output before "
            "writing it (+= into memory nobody zeroed), read outside the inputs, read memory it "
            "allocated and never wrote, or read slots of a shared tile that no thread wrote (the "
            "check fills new allocations and shared memory with NaN: CUDA promises nothing about "
            "what they hold, and zero times a NaN is a NaN)?",
            v.written_nan);
    }
    return "";
}

// Scans an out_rows x out_cols output, bands of rows in parallel. `at(r, c)` returns {expected, actual, within
// tolerance}; the actual value comes as a float so that the poison can be told from a NaN the kernel computed.
// `first` is the first wrong element in row order, whatever order the bands finish in.
template <typename At>
Verdict scan(int64_t out_rows, int64_t out_cols, At at) {
    Verdict v;
    v.checked = out_rows * out_cols;
    const int64_t bands = (out_rows + kBandRows - 1) / kBandRows;
    const bool interior_exists = out_rows > kEdgeBand && out_cols > kEdgeBand;
    bool interior_bad = false;
    int64_t wrong = 0, unwritten = 0, written_nan = 0, from_unset_shared = 0, from_fresh_allocation = 0;
    double max_error = 0;
#pragma omp parallel for schedule(dynamic, 8) \
    reduction(+ : wrong, unwritten, written_nan, from_unset_shared, from_fresh_allocation) \
    reduction(max : max_error) reduction(|| : interior_bad)
    for (int64_t band = 0; band < bands; ++band) {
        const int64_t r0 = band * kBandRows, r1 = std::min(out_rows, r0 + kBandRows);
        Mismatch band_first;
        for (int64_t c = 0; c < out_cols; ++c) {
            for (int64_t r = r0; r < r1; ++r) {
                const auto [expected, actual, good] = at(r, c);
                if (std::isfinite(actual)) max_error = std::max(max_error, std::fabs(actual - expected));
                if (good) continue;
                const Mismatch here{r, c, expected, actual, is_shared_poison(actual), is_fresh_poison(actual)};
                if (band_first.row < 0 || comes_before(here, band_first)) band_first = here;
                ++wrong;
                if (is_poison(actual))
                    ++unwritten;
                else if (here.from_unset_shared)
                    ++from_unset_shared;
                else if (here.from_fresh_allocation)
                    ++from_fresh_allocation;
                else if (std::isnan(actual))
                    ++written_nan;
                interior_bad = interior_bad || (r < out_rows - kEdgeBand && c < out_cols - kEdgeBand);
            }
        }
        if (band_first.row >= 0) {
#pragma omp critical(first_mismatch)
            if (v.first.row < 0 || comes_before(band_first, v.first)) v.first = band_first;
        }
    }
    v.wrong = wrong;
    v.unwritten = unwritten;
    v.written_nan = written_nan;
    v.from_unset_shared = from_unset_shared;
    v.from_fresh_allocation = from_fresh_allocation;
    v.max_error = max_error;
    v.ok = v.wrong == 0;
    if (!v.ok) v.hint = hint_for(v, interior_exists && !interior_bad);
    return v;
}

// Each element's state, where the verdict found wrong ones in an output small enough to map. `at` is as for scan;
// `off_scale` is the error below which a finite element counts as off by a little (0: none does).
template <typename At>
void record_states(Verdict& v, int64_t out_rows, int64_t out_cols, double off_scale, At at) {
    if (v.ok || out_rows * out_cols > kMostElementsMapped) return;
    auto states = std::make_shared<ElementStates>();
    states->rows = out_rows;
    states->cols = out_cols;
    states->states.resize(static_cast<size_t>(out_rows * out_cols));
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < out_rows; ++r)
        for (int64_t c = 0; c < out_cols; ++c) {
            const auto [expected, actual, good] = at(r, c);
            states->states[r * out_cols + c] =
                good ? ElementState::Right
                     : classify_element(actual, static_cast<float>(expected), 0, is_poison(actual), off_scale, 1.0);
        }
    v.element_states = std::move(states);
}

}  // namespace

ElementState classify_element(float actual, float expected, double tolerance, bool poison, double largest_expected,
                              double off_fraction) {
    if (poison) return ElementState::Unwritten;
    if (!std::isfinite(actual)) return ElementState::NaN;
    const double error = std::fabs(static_cast<double>(actual) - expected);
    if (error <= tolerance) return ElementState::Right;
    return error <= off_fraction * largest_expected ? ElementState::Off : ElementState::Wrong;
}

void map_a_right_output(Verdict& v, int64_t rows, int64_t cols) {
    if (v.ok || v.element_states || rows * cols > kMostElementsMapped) return;
    auto states = std::make_shared<ElementStates>();
    states->rows = rows, states->cols = cols;
    states->states.assign(static_cast<size_t>(rows * cols), ElementState::Right);
    v.element_states = std::move(states);
}

Verdict verify_transpose(const float* in, const float* out, int rows, int cols) {
    // out is cols x rows: out(r, c) = in(c, r).
    const auto at = [&](int64_t r, int64_t c) {
        const float expected = in[c * cols + r];
        const float actual = out[r * rows + c];
        // Bitwise equality: a transpose moves values, so anything but the same bits is wrong.
        const bool good = std::memcmp(&expected, &actual, sizeof(float)) == 0;
        return std::tuple<double, float, bool>{expected, actual, good};
    };
    Verdict v = scan(cols, rows, at);
    record_states(v, cols, rows, 0, at);  // a value moved, never computed: no element is off by a little
    if (!v.ok && v.unwritten < v.wrong && rows * int64_t{1} * cols > 1) {
        // A copy leaves element i where it was; count how many positions match the input read as-is.
        const int64_t n = int64_t{rows} * cols;
        int64_t same = 0;
#pragma omp parallel for reduction(+ : same)
        for (int64_t i = 0; i < n; ++i) same += in[i] == out[i];
        if (same * 10 >= n * 9)
            v.hint =
                "The output is a copy of the input, not its transpose: swap the row and column roles "
                "in the store";
    }
    return v;
}

double matmul_tolerance(int K, double max_abs_a, double max_abs_b) {
    const double eps = std::numeric_limits<float>::epsilon();
    return 4.0 * eps * std::max(K, 1) * std::max(max_abs_a, 1e-30) * std::max(max_abs_b, 1e-30);
}

namespace {

// The root mean square of the expected values. An element wrong by less than this is "off by a little" on the map:
// sums that miss a few of their terms (a skipped partial k tile) land there, a wrong index's values do not.
template <typename Ref>
double typical_magnitude(const Ref* reference, int64_t count) {
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int64_t i = 0; i < count; ++i) sum += static_cast<double>(reference[i]) * reference[i];
    return count > 0 ? std::sqrt(sum / count) : 0;
}

template <typename Ref>
Verdict verify_matmul_impl(const float* C, const Ref* reference, int M, int N, double tolerance) {
    const auto at = [&](int64_t i, int64_t j) {
        const double expected = static_cast<double>(reference[i + j * M]);
        const float actual = C[i + j * M];
        const bool good = std::isfinite(actual) && std::fabs(actual - expected) <= tolerance;
        return std::tuple<double, float, bool>{expected, actual, good};
    };
    Verdict v = scan(M, N, at);
    record_states(v, M, N, typical_magnitude(reference, int64_t{M} * N), at);
    if (!v.ok && v.hint.empty() && v.unwritten == 0 && v.written_nan == 0 && v.max_error < 1e3 * tolerance)
        v.hint = fmt::format(
            "Close but beyond the tolerance {:.2g} (largest error {:.2g}): is a partial K tile "
            "skipped, or are the inputs rounded (TF32)?",
            tolerance, v.max_error);
    return v;
}

}  // namespace

Verdict verify_matmul(const float* C, const double* reference, int M, int N, double tolerance) {
    return verify_matmul_impl(C, reference, M, N, tolerance);
}
Verdict verify_matmul(const float* C, const float* reference, int M, int N, double tolerance) {
    return verify_matmul_impl(C, reference, M, N, tolerance);
}

double max_abs(const float* data, int64_t count) {
    double m = 0;
#pragma omp parallel for reduction(max : m)
    for (int64_t i = 0; i < count; ++i) m = std::max(m, static_cast<double>(std::fabs(data[i])));
    return m;
}

}  // namespace workshop
