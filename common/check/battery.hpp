// make check's engine: the shape battery, and compute-sanitizer's memcheck, racecheck and synccheck at two small
// shapes beside it (a process per tool, the program running itself with --check-sanitizer-shapes); in step 1,
// also the round trip through host memory at one very large shape. The shapes of the battery
// run in one child process, in turn (the program runs itself with --check-in-turn): creating a CUDA context costs
// a few tenths of a second, once instead of once a shape. A kernel that faults poisons its context and one that
// hangs holds its process, so the shapes that child did not finish then get a process each (--check-shape),
// several at a time, and a bad shape takes down no other; one that gives no answer there gets a second run by
// itself (run_again_alone). On a GPU that takes one process at a time, every child runs alone. The process that
// runs the battery makes no CUDA context of its own. Prints a line per shape and per tool, then its verdict line
// that starts with PASS: or FAIL: and says why, or with NOT CHECKED: when some of it could not run here (too
// little free memory, a GPU too busy to start a process in time) and nothing that ran failed; under a FAIL, the map
// of a wrong answer (print_map). It returns the same (BatteryOutcome), which make check's verdict
// (programs/verdict_run.hpp) builds on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/child_processes.hpp"

namespace workshop {

struct BatteryShape {
    std::string label;              // "31x33", "64x96+1"
    std::vector<std::string> args;  // for --check-shape: "--rows", "31", "--cols", "33", ...
    bool equal_sides = false;       // rows == cols, or M == N == K: a size mixed up with another goes unseen here
    bool outgrows_a_grid = false;   // a side longer than 65535 blocks of 16: more than one grid's height
};

struct BatteryRequest {
    std::string title;  // "transpose battery, step 3"
    std::vector<BatteryShape> shapes;
    // Where the sanitizers run (guards off, so memcheck sees): the labels, "67x45"; each tool's process runs the
    // shapes themselves with --check-sanitizer-shapes.
    std::vector<std::string> sanitizer_shapes;
    std::vector<std::string> common_args;  // passed to every child: the seed, and --say-ready (kChildReady)
    // Step 1 only: its *_from_host once more, in a process of its own, at a shape whose matrices pass 2^31 bytes
    // (where a byte count kept in an int goes wrong); "SKIP not tried here" where the machine has too little memory.
    std::optional<BatteryShape> round_trip_shape;
    // memcheck also reports device memory never freed. Only in step 1, whose *_from_host must free what it
    // allocates (its TODO says so); later steps may keep a buffer for the life of the program, as step 5's
    // matmul solution does.
    bool check_leaks = false;
    // The GPU lets one process at a time make a context (compute mode exclusive-process): every child runs alone.
    bool one_process_at_a_time = false;
};

// What make check's children (--check-shape, --check-in-turn, --check-round-trip, given --say-ready) print once
// they have a CUDA context, before any of the student's code runs: their time limits count from there
// (ChildJob::ready_line). The same options typed by hand print no such line.
constexpr const char* kChildReady = "@@ ready";
// What such a child prints before a shape waits for the GPU's timing lock (another check's timing), then kChildReady
// again: the wait is no part of its time limit (ChildJob::pause_line).
constexpr const char* kChildPaused = "@@ waiting for another check's timing";

// Why a child could not run its shape or tool here, or empty: the harness's refusal for too little free memory
// (its "not enough ... memory" line, before any of the student's code ran, also where there is no room for a CUDA
// context), a GPU that takes one process at a time held by another (its "GPU busy: " line), or a child not ready
// to start in time. None says anything about the student's code, so make check says NOT CHECKED, not FAIL. Step
// 1's own host code ends with exit 4 too when its cudaMalloc fails, or on a std::bad_alloc: those are the
// student's.
std::string not_run_reason(const ChildResult& r);
// What to do about a not_run_reason(): free memory, or wait for a quieter GPU.
std::string what_to_do_when_not_run(const std::string& why);

// A shape whose process gave no answer in time while other shapes' processes ran beside it gets one more run, by
// itself, before it counts as never finished: other processes on the GPU (the check's own, a room's) stretch a
// kernel's time, and a limit counts wall time. Runs the jobs one at a time and stops at the first that times out
// again, so that a kernel that really never finishes costs one more limit, not one a shape. Returns each job's
// result, or nothing for the jobs after that one.
std::vector<std::optional<ChildResult>> run_again_alone(const std::vector<ChildJob>& jobs);

// What a child of the battery (--check-shape, --check-in-turn, --check-round-trip) found at a shape: one JSON object
// a line on its report channel (kReportChannel, ChildJob::reports), which nothing the student's kernel prints
// reaches. The human lines (headline, then details) are printed on stdout as well, for a shape checked by hand.
// The functions from here to failure_line, but for the map's, are the wire: shape_reports.cpp.
struct ShapeReport {
    enum class Outcome { Pass, Skip, Fail };
    int shape = -1;  // its place in the battery (--check-in-turn); -1 in a process of one shape
    Outcome outcome = Outcome::Pass;
    std::string headline;              // the first line, as printed: "PASS", "SKIP no kernel yet", "FAIL: ..."
    std::string reason;                // for a FAIL: the headline without "FAIL: "
    std::string hint;                  // what the pattern suggests; empty when nothing stands out
    std::vector<std::string> details;  // the lines printed under the headline (the hint and notes among them)
    int exit_code = 0;                 // what the shape's check returns (exit_codes.hpp)
    bool unsteady = false;             // another answer on a second launch, nothing else explaining it
    bool non_blocking_stream = false;  // the program made a stream with cudaStreamNonBlocking
    // The map of the wrong answer (report/wrong_answer_map.hpp), where there is one: for a terminal in plain
    // characters and in colour, its headline, the SVG picture, and what the battery picks the shape to map by: the
    // output's elements and the launch's blocks down and across it.
    std::string map, map_in_colour, map_headline, map_svg;
    int64_t map_elements = 0, map_blocks_down = 0, map_blocks_across = 0;
};

// A report of one line and no details; a FAIL's reason is its headline without "FAIL: ".
ShapeReport report_of_a_line(ShapeReport::Outcome outcome, const std::string& headline, int exit_code);

// One line of JSON, and back; nothing for a line that is no report.
std::string report_line(const ShapeReport& report);
std::optional<ShapeReport> report_from_line(const std::string& line);
// Every report in what a child wrote on its channel, in order.
std::vector<ShapeReport> reports_in(const std::string& channel);

// The child's side: sends `report` on this process's report channel, where it has one (the battery started it);
// returns whether it did. A write that fails ends the program (kExitCannotWrite): a shape with no report reads as
// not finished.
bool send_report(const ShapeReport& report);
// The channel's descriptor, for a fault handler that must write there without opening anything; -1 where none.
int report_channel();
// --check-in-turn: the shape whose report comes next (ShapeReport::shape).
void set_shape_in_turn(int index);
int shape_in_turn();

// Environment: WORKSHOP_COLOR=always colours the map even where stdout is no terminal (make watch).
// Prints a report's map of the wrong answer, if it has one: a line with its headline ("the map of the wrong answer
// at LABEL: ..."; no "at" where `label` is empty), the map for a terminal (in colour where stdout is one, or where
// WORKSHOP_COLOR is "always"), and where its SVG picture was written: `picture`, by default beside this program,
// maps/PROGRAM.svg (map_picture_path). A picture that cannot be written is said in a note; the map is printed all
// the same. Returns the picture's path, or empty where none was written.
std::filesystem::path map_picture_path(const std::filesystem::path& program = {});  // {}: this program
std::string print_map(const ShapeReport& report, const std::string& label,
                      const std::filesystem::path& picture = map_picture_path());

// Of the battery's failing shapes (`reports`, empty where a shape passed or said nothing), the one whose map is
// shown: the smallest (in elements) with at least two blocks down and across, else the smallest; none where no
// failing shape has a map.
std::optional<size_t> shape_to_map(const std::vector<std::optional<ShapeReport>>& reports);

// The shapes a --check-in-turn child finished, read from its reports: for shape I, its report (in `reports`) and
// the exit code it reported, as if it had run alone; empty for the shapes it never finished.
std::vector<std::optional<ChildResult>> finished_shapes(const std::string& reports, size_t shape_count);

// What a timing run in --json mode said when it failed: its failure as one line of JSON on stdout, {"failure":
// {...}} (a ShapeReport), and the rest of what it printed, for the student. make check's verdict reads it.
struct TimingRunSaid {
    std::string shown;                   // its output without the failure's JSON line
    std::optional<ShapeReport> failure;  // the last failure it reported, if any
};
TimingRunSaid timing_run_said(const std::string& out);
// The line a --json run prints for a failure (timing_run_said reads it back).
std::string failure_line(const ShapeReport& report);
// Where a failure is said besides its human lines and the report channel: also as failure_line on stdout, in a
// --json run (make check's timed run), set before any check.
enum class FailureRoute { ReportChannelOnly, AlsoJsonOnStdout };
void set_failure_route(FailureRoute route);
FailureRoute failure_route();

// A clause for make check's FAIL line, or empty: when every shape with equal sides passes and only shapes whose
// sides differ fail, one size most likely stands where another belongs (a rows for a cols, an M for an N). The
// shapes that outgrow a grid count for neither side: they fail for a reason of their own, the next one's.
std::string mixed_up_sizes_hint(const std::vector<BatteryShape>& shapes, const std::vector<bool>& passed);

// A clause for make check's FAIL line, or empty: when the only shapes that fail are those with a side longer than
// one grid's height, the grid most likely asks for more than 65535 blocks on y, or stops there with no loop
// over the rest.
std::string grid_height_hint(const std::vector<BatteryShape>& shapes, const std::vector<bool>& passed);

// A clause for make check's FAIL line, or empty: when `unsteady` of the `failing` shapes gave another answer on a
// second launch with every element written (Verdict::compare_second_launch), the two hints above would read luck
// as a pattern: a value read before it is set passes or fails a shape by chance. This one takes their place.
std::string unsteady_answers_hint(size_t unsteady, size_t failing);
// Whether a failing shape's headline counts as unsteady for it: another answer on the second launch, with every
// element written and none taken from shared memory that no thread wrote (which explains the change).
bool unsteady_answer(const std::string& headline);

// The clause for make check's FAIL line when a failing shape's program made a stream with cudaStreamNonBlocking
// (its details carry kNonBlockingStreamMade): the checks' poison waits until a kernel on that stream has run
// (GuardedMatrix::poison), so every shape fails for the stream and not for a pattern, and this takes the place of
// the three hints above.
std::string non_blocking_stream_hint();

// A clause for make check's FAIL line when step 1's round trip with matrices of more than 2^31 bytes fails, or
// empty: when every shape of the battery passes, a byte count most likely lives in an int.
std::string byte_count_hint(bool battery_passed);

// What the battery found, as its last line says it (PASS: ..., FAIL: ..., NOT CHECKED: ...).
struct BatteryOutcome {
    int exit_code = 0;           // the program's: 0 only when everything passed, 4 for NOT CHECKED, else FAIL
    std::string reason;          // the last line without its first word: what passed, what failed, what did not run
    bool sanitizers_ran = true;  // false where compute-sanitizer was not found
    std::string map_picture;     // on a FAIL with a map of a wrong answer: where its SVG was written, else empty
};

// The battery and the memory checks, printed as they end, then the last line.
BatteryOutcome run_battery(const BatteryRequest& request);

// The harness's line refusing to run for want of memory (not a std::bad_alloc, which may be the student's), or
// for a GPU held by another process, in a program's standard error; empty when there is none.
std::string refusal_in(const std::string& err);

// make sanitize: the same three tools at the sanitizer shapes, each finding with its source line.
int run_sanitizers(const BatteryRequest& request);

}  // namespace workshop
