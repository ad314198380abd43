#include "report/wrong_answer_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace workshop {

namespace {

constexpr int kStates = 5;

struct StateLook {
    char symbol;
    const char* colour;  // ANSI
    const char* fill;    // SVG
    const char* name;
};

// Indexed by ElementState.
constexpr std::array<StateLook, kStates> kLooks{{
    {'.', "\033[32m", "#4caf50", "right"},
    {'~', "\033[33m", "#ffc107", "off by a little"},
    {'x', "\033[31m", "#e53935", "wrong"},
    {'N', "\033[35m", "#8e24aa", "NaN or Inf written"},
    {'_', "\033[90m", "#cfd8dc", "never written"},
}};

const StateLook& look(ElementState s) { return kLooks[static_cast<int>(s)]; }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The smallest cell extent of at least `need` that divides `block`, so block boundaries fall between cells;
// `need` itself where none does (or the block is unknown or smaller than a cell).
int64_t extent_along(int64_t need, int64_t block) {
    if (block <= 0 || block < need) return need;
    for (int64_t d = need; d <= block; ++d)
        if (block % d == 0) return d;
    return need;
}

// The worst state of the elements a cell stands for, and which states appear anywhere.
struct Grid {
    CellSize cell;
    int64_t cell_rows = 0, cell_cols = 0;
    std::vector<ElementState> cells;
    std::array<int64_t, kStates> counts{};
};

Grid gather(const OutputStates& out, const MapStyle& style) {
    Grid g;
    g.cell = cell_size_for(out.rows, out.cols, style);
    if (out.block_cols > 0) g.cell.cols = extent_along(g.cell.cols, out.block_cols);
    if (out.block_rows > 0) g.cell.rows = extent_along(g.cell.rows, out.block_rows);
    g.cell_rows = ceil_div(out.rows, g.cell.rows);
    g.cell_cols = ceil_div(out.cols, g.cell.cols);
    g.cells.assign(g.cell_rows * g.cell_cols, ElementState::Right);
    for (int64_t r = 0; r < out.rows; ++r)
        for (int64_t c = 0; c < out.cols; ++c) {
            const ElementState s = out.states[r * out.cols + c];
            ++g.counts[static_cast<int>(s)];
            ElementState& cell = g.cells[(r / g.cell.rows) * g.cell_cols + c / g.cell.cols];
            cell = std::max(cell, s);
        }
    return g;
}

// Whether a block boundary lies after cell `i` (of `cells`, each `extent` elements), drawn only where blocks span
// two cells or more, so that the lines separate blocks rather than every cell.
bool boundary_after(int64_t i, int64_t cells, int64_t extent, int64_t block) {
    if (block <= 0 || block < 2 * extent || i + 1 >= cells) return false;
    return ((i + 1) * extent) % block == 0;
}

std::string cell_text(ElementState s, bool colour) {
    const StateLook& l = look(s);
    return colour ? fmt::format("{}{}\033[0m", l.colour, l.symbol) : std::string(1, l.symbol);
}

std::string grid_row(const Grid& g, const OutputStates& out, int64_t i, bool colour) {
    std::string line = "  ";
    for (int64_t j = 0; j < g.cell_cols; ++j) {
        line += cell_text(g.cells[i * g.cell_cols + j], colour);
        if (boundary_after(j, g.cell_cols, g.cell.cols, out.block_cols)) line += '|';
    }
    return line + '\n';
}

std::string boundary_row(const Grid& g, const OutputStates& out) {
    std::string line = "  ";
    for (int64_t j = 0; j < g.cell_cols; ++j) {
        line += '-';
        if (boundary_after(j, g.cell_cols, g.cell.cols, out.block_cols)) line += '+';
    }
    return line + '\n';
}

std::string legend(const Grid& g, bool colour) {
    std::string line = "  legend:";
    for (int s = 0; s < kStates; ++s)
        if (g.counts[s] > 0 || s == 0)
            line += fmt::format("  {} {} ({})", cell_text(static_cast<ElementState>(s), colour), kLooks[s].name,
                                g.counts[s]);
    return line + '\n';
}

double fraction(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / whole : 0; }

// Every never-written element lies in the last partial row or column of blocks, and fills it: the grid was rounded
// down.
bool only_the_partial_blocks_unwritten(const OutputStates& out, int64_t unwritten) {
    if (out.block_rows <= 0 || out.block_cols <= 0 || unwritten == 0) return false;
    const int64_t full_rows = out.rows / out.block_rows * out.block_rows;
    const int64_t full_cols = out.cols / out.block_cols * out.block_cols;
    if (full_rows == out.rows && full_cols == out.cols) return false;
    for (int64_t r = 0; r < out.rows; ++r)
        for (int64_t c = 0; c < out.cols; ++c) {
            const bool in_partial = r >= full_rows || c >= full_cols;
            if (in_partial != (out.states[r * out.cols + c] == ElementState::Unwritten)) return false;
        }
    return true;
}

// Within every full square block the right elements are those on its diagonal: each tile came out transposed
// the wrong way round (read and written in the same order).
bool right_only_on_block_diagonals(const OutputStates& out) {
    if (out.block_rows <= 1 || out.block_rows != out.block_cols) return false;
    const int64_t b = out.block_rows;
    int64_t off_diagonal_right = 0, off_diagonal = 0, diagonal_wrong = 0;
    for (int64_t r = 0; r < out.rows / b * b; ++r)
        for (int64_t c = 0; c < out.cols / b * b; ++c) {
            const bool right = out.states[r * out.cols + c] == ElementState::Right;
            if (r % b == c % b) {
                diagonal_wrong += !right;
            } else {
                ++off_diagonal;
                off_diagonal_right += right;
            }
        }
    return off_diagonal > 0 && diagonal_wrong == 0 && fraction(off_diagonal_right, off_diagonal) < 0.05;
}

// How many blocks hold at least one wrong element.
int64_t blocks_touched(const OutputStates& out) {
    if (out.block_rows <= 0 || out.block_cols <= 0) return 0;
    const int64_t across = ceil_div(out.cols, out.block_cols);
    std::vector<bool> touched(ceil_div(out.rows, out.block_rows) * across, false);
    for (int64_t r = 0; r < out.rows; ++r)
        for (int64_t c = 0; c < out.cols; ++c)
            if (out.states[r * out.cols + c] != ElementState::Right)
                touched[(r / out.block_rows) * across + c / out.block_cols] = true;
    return std::count(touched.begin(), touched.end(), true);
}

}  // namespace

OutputStates output_states_of(const Verdict& v) {
    OutputStates out;
    if (!v.element_states) return out;
    const ElementStates& e = *v.element_states;
    out.rows = e.rows, out.cols = e.cols;
    out.states = e.states;
    out.block_rows = e.block_rows, out.block_cols = e.block_cols;
    out.written_after_end = v.outside.after;
    out.written_before_start = v.outside.before;
    out.changed_by_relaunch = v.changed_by_relaunch;
    return out;
}

CellSize cell_size_for(int64_t rows, int64_t cols, const MapStyle& style) {
    return CellSize{std::max<int64_t>(1, ceil_div(rows, std::max(1, style.max_rows))),
                    std::max<int64_t>(1, ceil_div(cols, std::max(1, style.max_columns)))};
}

std::string terminal_map(const OutputStates& out, const MapStyle& style) {
    const Grid g = gather(out, style);
    std::string text = g.cell.rows * g.cell.cols == 1
                           ? fmt::format("  the {} x {} output, one character per element", out.rows, out.cols)
                           : fmt::format("  the {} x {} output, one character per {} x {} elements (the worst of them)",
                                         out.rows, out.cols, g.cell.rows, g.cell.cols);
    if (out.block_rows > 0 && out.block_cols > 0)
        text += fmt::format("; blocks of {} x {} output elements", out.block_rows, out.block_cols);
    text += '\n';
    if (out.written_before_start > 0)
        text += fmt::format("  >> {} words before the start of the output were written\n", out.written_before_start);
    for (int64_t i = 0; i < g.cell_rows; ++i) {
        text += grid_row(g, out, i, style.colour);
        if (boundary_after(i, g.cell_rows, g.cell.rows, out.block_rows)) text += boundary_row(g, out);
    }
    if (out.written_after_end > 0)
        text += fmt::format("  >> {} words past the end of the output were written (its guard zone)\n",
                            out.written_after_end);
    if (out.changed_by_relaunch > 0)
        text += fmt::format(
            "  >> {} elements came out otherwise in a second launch on the same inputs: the wrong cells change from "
            "launch to launch\n",
            out.changed_by_relaunch);
    return text + legend(g, style.colour);
}

std::string svg_map(const OutputStates& out) {
    // One square per element up to 256 across; beyond, squares of several elements, as on the terminal.
    const Grid g = gather(out, MapStyle{256, 256, false});
    const int square = 6, margin = 10;
    const int64_t width = g.cell_cols * square + 2 * margin, height = g.cell_rows * square + 2 * margin + 18;
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        width, height, width, height);
    // A run of cells of one state in a row is one rectangle: a map is mostly runs, and the file stays small.
    for (int64_t i = 0; i < g.cell_rows; ++i)
        for (int64_t j = 0, run = 1; j < g.cell_cols; j += run) {
            const ElementState state = g.cells[i * g.cell_cols + j];
            for (run = 1; j + run < g.cell_cols && g.cells[i * g.cell_cols + j + run] == state;) ++run;
            svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n",
                               margin + j * square, margin + i * square, run * square, square, look(state).fill);
        }
    for (int64_t j = 0; j < g.cell_cols; ++j)
        if (boundary_after(j, g.cell_cols, g.cell.cols, out.block_cols))
            svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n",
                               margin + (j + 1) * square, margin, margin + g.cell_rows * square);
    for (int64_t i = 0; i < g.cell_rows; ++i)
        if (boundary_after(i, g.cell_rows, g.cell.rows, out.block_rows))
            svg += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"black\"/>\n",
                               margin + (i + 1) * square, margin, margin + g.cell_cols * square);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" font-family=\"sans-serif\" font-size=\"11\">{} x {}: {}</text>\n",
                       margin, height - 6, out.rows, out.cols, map_headline(out));
    return svg + "</svg>\n";
}

std::string map_headline(const OutputStates& out) {
    std::array<int64_t, kStates> counts{};
    for (const ElementState s : out.states) ++counts[static_cast<int>(s)];
    const int64_t total = out.rows * out.cols;
    const int64_t off = counts[1], wrong = counts[2], nan = counts[3], unwritten = counts[4];
    if (unwritten == total) return "no element was written";
    if (out.written_after_end > 0)
        return "the kernel wrote past the end of the output (a store whose bounds test lets the last threads through)";
    if (only_the_partial_blocks_unwritten(out, unwritten))
        return "only the last partial row and column of blocks were never written: the grid does not cover the edges";
    if (off > 0 && wrong + nan + unwritten == 0)
        return fraction(off, total) > 0.5 ? "every element is off by a little: a term of each sum is missing"
                                          : "some elements are off by a little, none far off";
    if (right_only_on_block_diagonals(out))
        return "right only on the diagonal of every block: each tile is read and written in the same order";
    if (out.changed_by_relaunch > 0)
        return "the wrong elements change from launch to launch: a race, or a value read before it is set";
    const int64_t blocks = blocks_touched(out);
    const int64_t all_blocks = out.block_rows > 0 && out.block_cols > 0
                                   ? ceil_div(out.rows, out.block_rows) * ceil_div(out.cols, out.block_cols)
                                   : 0;
    if (wrong + nan + unwritten > 0 && fraction(wrong + nan + unwritten, total) < 0.25 && all_blocks > 1 &&
        blocks * 2 >= all_blocks)
        return "scattered wrong elements in many blocks: as a race's, they move from run to run";
    return "";
}

}  // namespace workshop
