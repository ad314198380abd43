// The map of a wrong answer: the output matrix drawn as a grid of cells, each saying whether its elements came out
// right, a little off, wrong, never written, or NaN. Most kernel bugs have a shape (the last column of every tile,
// the lower triangle, one block in four), and a student sees a shape at once where a count and a first coordinate
// make them reason it out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/verify.hpp"  // ElementState, classify_element

namespace workshop {

// The output of one run, element by element (row-major, rows x cols), with the extent of one block of the launch
// in output elements (0: not known, no boundaries drawn) and what the guard zones around it saw.
struct OutputStates {
    int64_t rows = 0, cols = 0;
    std::vector<ElementState> states;
    int64_t block_rows = 0, block_cols = 0;
    int64_t written_after_end = 0;     // words of the guard zone after the output that a kernel changed
    int64_t written_before_start = 0;  // ... and before it
    int64_t changed_by_relaunch = 0;   // elements a second launch on the same inputs left different
};

// The map's input from a wrong verdict: its element states (Verdict::element_states), its guard zones and its second
// launch. Nothing (rows 0) where the verdict has no element states.
OutputStates output_states_of(const Verdict& v);

struct MapStyle {
    int max_columns = 64;  // cells across, at most
    int max_rows = 24;     // cells down, at most
    bool colour = false;   // ANSI colours (on a terminal)
};

// How many elements a cell stands for, down and across, so that the map fits the style's limits.
struct CellSize {
    int64_t rows = 1, cols = 1;
};
CellSize cell_size_for(int64_t rows, int64_t cols, const MapStyle& style);

// The map for a terminal: a heading line with the cell size, the grid (block boundaries drawn as | and - where
// they fall between cells), a line for a guard zone that was written, and a legend of the states present.
std::string terminal_map(const OutputStates& output, const MapStyle& style = {});

// The same map as an SVG picture, one square per element (or per cell of a few elements, for a large matrix).
std::string svg_map(const OutputStates& output);

// One sentence on the shape of the wrong elements where one stands out ("only the last partial block column and row
// were never written", "every element is off by a little", ...); empty when none does.
std::string map_headline(const OutputStates& output);

}  // namespace workshop
