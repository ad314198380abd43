// The map of a wrong answer, drawn from synthetic outputs: its cells, block boundaries, legend and headline.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "report/wrong_answer_map.hpp"
#include "verify/cpu_reference.hpp"
#include "verify/matrix_data.hpp"
#include "verify/verify.hpp"

using workshop::ElementState;
using workshop::OutputStates;

namespace {

OutputStates make_output(int64_t rows, int64_t cols, int64_t block,
                         const std::function<ElementState(int64_t, int64_t)>& state) {
    OutputStates out;
    out.rows = rows;
    out.cols = cols;
    out.block_rows = out.block_cols = block;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) out.states.push_back(state(r, c));
    return out;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST(WrongAnswerMap, ASmallOutputIsOneCharacterPerElementWithBlockBoundaries) {
    // 8 x 8 in blocks of 4; the last column of every block wrong.
    const auto out =
        make_output(8, 8, 4, [](int64_t, int64_t c) { return c % 4 == 3 ? ElementState::Wrong : ElementState::Right; });
    const auto lines = lines_of(workshop::terminal_map(out));
    ASSERT_EQ(lines.size(), 1u + 8 + 1 + 1);  // heading, 8 rows, one boundary row, legend
    EXPECT_NE(lines[0].find("one character per element"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[1], "  ...x|...x");
    EXPECT_EQ(lines[5], "  ----+----");
    EXPECT_EQ(lines[6], "  ...x|...x");
    EXPECT_NE(lines.back().find(". right (48)"), std::string::npos) << lines.back();
    EXPECT_NE(lines.back().find("x wrong (16)"), std::string::npos) << lines.back();
    EXPECT_EQ(lines.back().find("never written"), std::string::npos) << "only the states present are listed";
}

TEST(WrongAnswerMap, ALargeOutputFitsTheTerminalAndCellsShowTheWorstOfTheirElements) {
    const auto out = make_output(1000, 1000, 32, [](int64_t r, int64_t c) {
        return r == 999 && c == 0 ? ElementState::NaN : ElementState::Right;
    });
    const auto lines = lines_of(workshop::terminal_map(out));
    size_t widest = 0, grid_rows = 0;
    for (const auto& line : lines)
        if (line.rfind("  ", 0) == 0 && line.find_first_not_of(" .|-+N") == std::string::npos) {
            ++grid_rows;
            widest = std::max(widest, line.size() - 2);
        }
    EXPECT_LE(widest, 64u + 64u) << "cells plus boundary marks";
    EXPECT_LE(grid_rows, 24u + 24u);
    const auto cell = workshop::cell_size_for(1000, 1000, {});
    EXPECT_LE((1000 + cell.cols - 1) / cell.cols, 64);
    EXPECT_LE((1000 + cell.rows - 1) / cell.rows, 24);
    // The NaN in the bottom-left element shows in the bottom-left cell.
    std::string last_grid_row;
    for (const auto& line : lines)
        if (line.find('N') != std::string::npos && line.find("legend") == std::string::npos) last_grid_row = line;
    ASSERT_FALSE(last_grid_row.empty());
    EXPECT_EQ(last_grid_row[2], 'N');
}

TEST(WrongAnswerMap, ColourOnlyWhenAsked) {
    const auto out = make_output(2, 2, 0, [](int64_t, int64_t) { return ElementState::Wrong; });
    EXPECT_EQ(workshop::terminal_map(out).find('\033'), std::string::npos);
    EXPECT_NE(workshop::terminal_map(out, {64, 24, true}).find("\033[31mx"), std::string::npos);
}

TEST(WrongAnswerMap, AGridRoundedDownLeavesTheLastPartialBlocksUnwritten) {
    // 40 x 40 in blocks of 16: rows and columns from 32 on are never written.
    const auto out = make_output(40, 40, 16, [](int64_t r, int64_t c) {
        return r >= 32 || c >= 32 ? ElementState::Unwritten : ElementState::Right;
    });
    EXPECT_NE(workshop::map_headline(out).find("last partial row and column of blocks were never written"),
              std::string::npos)
        << workshop::map_headline(out);
    EXPECT_NE(workshop::terminal_map(out).find("_ never written"), std::string::npos);
}

TEST(WrongAnswerMap, ASkippedPartialTileIsOffByALittleNotPaintedWrong) {
    const auto out = make_output(33, 33, 16, [](int64_t, int64_t) { return ElementState::Off; });
    EXPECT_EQ(workshop::map_headline(out), "every element is off by a little: a term of each sum is missing");
    const std::string text = workshop::terminal_map(out);
    EXPECT_EQ(text.find("x wrong"), std::string::npos) << text;
    EXPECT_NE(text.find("  ~~~~~~~~~~~"), std::string::npos) << text;
    EXPECT_EQ(workshop::classify_element(10.5f, 10.0f, 1e-3, false, 100.0), ElementState::Off);
    EXPECT_EQ(workshop::classify_element(60.0f, 10.0f, 1e-3, false, 100.0), ElementState::Wrong);
    EXPECT_EQ(workshop::classify_element(10.0f, 10.0f, 1e-3, false, 100.0), ElementState::Right);
    EXPECT_EQ(workshop::classify_element(0.0f, 10.0f, 1e-3, true, 100.0), ElementState::Unwritten);
}

TEST(WrongAnswerMap, ATileReadTheWayItIsWrittenIsRightOnlyOnTheBlockDiagonals) {
    const auto out = make_output(
        64, 64, 32, [](int64_t r, int64_t c) { return r % 32 == c % 32 ? ElementState::Right : ElementState::Wrong; });
    EXPECT_NE(workshop::map_headline(out).find("right only on the diagonal of every block"), std::string::npos);
}

TEST(WrongAnswerMap, WritesPastTheEndAreMarkedUnderTheGrid) {
    auto out = make_output(
        16, 16, 8, [](int64_t r, int64_t c) { return r > 0 && c == 0 ? ElementState::Wrong : ElementState::Right; });
    out.written_after_end = 1;
    const auto text = workshop::terminal_map(out);
    EXPECT_NE(text.find(">> 1 words past the end of the output were written"), std::string::npos) << text;
    EXPECT_NE(workshop::map_headline(out).find("wrote past the end of the output"), std::string::npos);
}

TEST(WrongAnswerMap, ScatteredWrongElementsAreCalledARace) {
    const auto out = make_output(64, 64, 16, [](int64_t r, int64_t c) {
        return (r * 7 + c * 13) % 61 == 0 ? ElementState::Wrong : ElementState::Right;
    });
    EXPECT_NE(workshop::map_headline(out).find("scattered"), std::string::npos) << workshop::map_headline(out);
}

// One square per element, a run of one state in a row drawn as one rectangle: here 7 right, then 1 never written.
TEST(WrongAnswerMap, TheSvgHasOneSquarePerElementAndTheBoundaries) {
    const auto out =
        make_output(8, 8, 4, [](int64_t, int64_t c) { return c == 7 ? ElementState::Unwritten : ElementState::Right; });
    const std::string svg = workshop::svg_map(out);
    size_t squares = 0;
    for (size_t at = svg.find("<rect x="); at != std::string::npos; at = svg.find("<rect x=", at + 1)) ++squares;
    EXPECT_EQ(squares, 16u);
    EXPECT_NE(svg.find("width=\"42\" height=\"6\" fill=\"#4caf50\""), std::string::npos) << "a run of 7 squares of 6";
    EXPECT_NE(svg.find("x=\"52\" y=\"10\" width=\"6\" height=\"6\" fill=\"#cfd8dc\""), std::string::npos);
    size_t lines = 0;
    for (size_t at = svg.find("<line"); at != std::string::npos; at = svg.find("<line", at + 1)) ++lines;
    EXPECT_EQ(lines, 2u);  // one boundary across, one down
    EXPECT_NE(svg.find("#cfd8dc"), std::string::npos);
}

// From a verdict to its map, as make check draws it: the verification records each element's state where the
// answer is wrong, and the map reads them, with the verdict's guard zones and second launch.
namespace {

// A matmul (M x K times K x N, column-major) whose sums stop `missing` terms short of K, as a kernel that skips
// the last partial k tile does; and the verdict of that output against the full product.
workshop::Verdict matmul_missing_terms(int M, int N, int K, int missing, bool swap_an_index = false) {
    std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
    workshop::fill_random(A.data(), A.size(), 1);
    workshop::fill_random(B.data(), B.size(), 2);
    std::vector<double> reference(C.size());
    workshop::matmul_reference(A.data(), B.data(), reference.data(), M, N, K);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double sum = 0;
            for (int k = 0; k < K - missing; ++k) sum += double(A[i + size_t(k) * M]) * B[k + size_t(j) * K];
            C[i + size_t(j) * M] = static_cast<float>(sum);
        }
    if (swap_an_index)  // every element takes another's place: wrong by as much as the values themselves
        std::rotate(C.begin(), C.begin() + 1, C.end());
    const double tolerance = workshop::matmul_tolerance(K, workshop::max_abs(A.data(), int64_t(A.size())),
                                                        workshop::max_abs(B.data(), int64_t(B.size())));
    return workshop::verify_matmul(C.data(), reference.data(), M, N, tolerance);
}

}  // namespace

TEST(WrongAnswerMapOfAVerdict, ASkippedPartialKTileIsEveryElementOffByALittle) {
    // The battery's smallest matmul shape with a partial k tile and two blocks of 32 each way: one term of 33 missing.
    const workshop::Verdict v = matmul_missing_terms(129, 65, 33, 1);
    ASSERT_FALSE(v.ok);
    ASSERT_TRUE(v.element_states);
    EXPECT_EQ(v.element_states->rows, 129);
    EXPECT_EQ(v.element_states->cols, 65);
    const OutputStates out = workshop::output_states_of(v);
    EXPECT_EQ(workshop::map_headline(out), "every element is off by a little: a term of each sum is missing");
    EXPECT_NE(workshop::terminal_map(out).find("~ off by a little"), std::string::npos);
}

TEST(WrongAnswerMapOfAVerdict, AWrongIndexIsNotOffByALittle) {
    const workshop::Verdict v = matmul_missing_terms(129, 65, 33, 0, true);
    ASSERT_TRUE(v.element_states);
    const OutputStates out = workshop::output_states_of(v);
    EXPECT_EQ(workshop::map_headline(out).find("off by a little"), std::string::npos);
    EXPECT_NE(workshop::terminal_map(out).find("x wrong"), std::string::npos);
}

TEST(WrongAnswerMapOfAVerdict, ATransposeKeepsItsOutputsShapeAndNeverReadsOff) {
    const int rows = 5, cols = 7;
    std::vector<float> in(rows * cols), out(rows * cols);
    workshop::fill_random(in.data(), in.size(), 3);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) out[size_t(c) * rows + r] = in[size_t(r) * cols + c];
    out[0] = out[0] + 1e-6f;  // wrong by a hair: a transpose moves values, so still wrong
    workshop::fill_poison(out.data() + rows, 1);
    const workshop::Verdict v = workshop::verify_transpose(in.data(), out.data(), rows, cols);
    ASSERT_TRUE(v.element_states);
    EXPECT_EQ(v.element_states->rows, cols);  // the output is cols x rows
    EXPECT_EQ(v.element_states->cols, rows);
    EXPECT_EQ(v.element_states->states[0], ElementState::Wrong);
    EXPECT_EQ(v.element_states->states[rows], ElementState::Unwritten);
    EXPECT_EQ(v.element_states->states[1], ElementState::Right);
}

TEST(WrongAnswerMapOfAVerdict, ARightAnswerHasNoMap) {
    EXPECT_FALSE(matmul_missing_terms(33, 34, 35, 0).element_states);
}

TEST(WrongAnswerMapOfAVerdict, AnAnswerThatChangesBetweenLaunchesSaysSo) {
    workshop::Verdict v = matmul_missing_terms(64, 64, 40, 0, true);
    v.changed_by_relaunch = 17;
    const OutputStates out = workshop::output_states_of(v);
    EXPECT_EQ(out.changed_by_relaunch, 17);
    EXPECT_NE(workshop::map_headline(out).find("change from launch to launch"), std::string::npos);
    EXPECT_NE(workshop::terminal_map(out).find(">> 17 elements came out otherwise in a second launch"),
              std::string::npos);
}
