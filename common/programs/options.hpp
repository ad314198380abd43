// Command-line options of every workshop program. Parsing is pure (no CUDA), so each bad input has a test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace workshop {

enum class Track { Transpose, Matmul };
enum class OutputFormat { Human, Csv, Json };

// What the program does; one per run. The --check-... modes are what make check's processes start.
enum class Mode {
    OneSize,               // the timed run at one size (make run)
    Check,                 // the whole shape battery and the memory checks (--check)
    Verdict,               // make check: the battery, then the timing beside the solutions', and the verdict line
    CheckShape,            // one checked run at the size given, no timing
    CheckInTurn,           // every shape of the battery in this process, one after the other (--check's child)
    CheckRoundTrip,        // step 1: *_from_host alone at the size given, SKIP where it does not fit
    CheckSanitizerShapes,  // each shape compute-sanitizer checks, in turn (--check's and --sanitize's child)
    Sanitize,              // compute-sanitizer's memcheck, racecheck and synccheck at two small shapes
};

struct Options {
    // Transpose: an input of rows x cols. Matmul: C (M x N) = A (M x K) * B (K x N).
    int rows = 8192, cols = 8192;
    int M = 4096, N = 4096, K = 4096;

    int warmup = 2;
    int reps = 20;            // timed runs, at least
    double min_time_s = 1.0;  // and timing goes on until this many seconds have passed (TimingPlan says why)
    double budget_s = 5.0;    // stop timing early past this many seconds (never under 3 runs); 0 = no limit
    uint64_t seed = 20240611;
    OutputFormat format = OutputFormat::Human;
    Mode mode = Mode::OneSize;
    bool say_ready = false;  // print make check's ready line once the CUDA context is up (--check's children)
    int misalign = 0;        // 1 to 3: the matrices start that many floats past an aligned address
    bool guards = true;      // canary words around every matrix (off under compute-sanitizer)
    bool flush_l2 = false;   // evict L2 before every timed run
    bool references = true;  // time the copy kernel / cuBLAS beside the step
    bool host_rows = true;   // step 1: also time the CPU version and the round trips through host memory
    bool verified = true;    // the timed size's output checked before and after the timing (--unverified: not)
    bool help = false;
    // --verdict: the programs timed beside this one (this step's solution, the last step's; empty in step 1), and
    // the options given for the timing runs, as typed (every option but these three), passed on to each.
    std::string solution_program, previous_program;
    std::vector<std::string> timing_args;
};

struct ParseOutcome {
    Options options;
    std::string error;  // empty when the command line was valid
    bool ok() const { return error.empty(); }
};

ParseOutcome parse_options(Track track, int argc, const char* const* argv);
std::string usage_text(Track track, const std::string& program);

// Reads a shape as make check's processes pass it: "ROWSxCOLS[+MISALIGN]" for the transpose, "MxNxK[+MISALIGN]"
// for the matmul (TransposeShape::label(), MatmulShape::label()), into `o`; on failure returns false, and why.
bool parse_shape(Track track, const std::string& text, Options& o, std::string& error);

// Parses a whole number in [min, max]; on failure returns false and says why in `error`.
bool parse_int_in_range(const std::string& option, const std::string& text, int64_t min, int64_t max, int64_t& value,
                        std::string& error);

// Largest element count the kernels index with int.
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

}  // namespace workshop
