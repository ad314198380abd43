// make check's engine: the shape battery with every shape in a process of its own (the program runs itself
// with --check-shape), several at a time, and compute-sanitizer's memcheck and racecheck at one small, awkward
// shape beside them. Prints a line per shape and per tool, then one last line that starts with PASS: or
// FAIL: and says why; make check turns it into the verdict.
#pragma once

#include <string>
#include <vector>

namespace workshop {

struct BatteryShape {
    std::string label;              // "31x33", "64x96+1"
    std::vector<std::string> args;  // for --check-shape: "--rows", "31", "--cols", "33", ...
};

struct BatteryRequest {
    std::string title;                     // "transpose battery, step 3"
    std::vector<BatteryShape> shapes;
    BatteryShape sanitizer_shape;          // where memcheck and racecheck run (guards off, so memcheck sees)
    std::vector<std::string> common_args;  // passed to every child: the seed
};

// The battery and the memory checks; returns the program's exit code (0 only when everything passed).
int run_battery(const BatteryRequest& request);

// make sanitize: memcheck, racecheck and synccheck at the sanitizer shape, each finding with its source line.
int run_sanitizers(const BatteryRequest& request);

}  // namespace workshop
