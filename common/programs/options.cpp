// Options are parsed by hand rather than with CLI11 or cxxopts. The programs take a dozen flags and integers,
// and each bad value must give the one error line the tests expect ("--reps: 'x' is not a whole number"),
// which with either library means a custom validator per option anyway: the parsing that would be left to
// the library is the table lookup in parse_options. Neither is packaged on every machine the workshop runs on
// (a cluster's GPU nodes often cannot reach a package registry), so it would have to be vendored as well.
#include "programs/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <vector>

namespace workshop {

bool parse_int_in_range(const std::string& option, const std::string& text, int64_t min, int64_t max, int64_t& value,
                        std::string& error) {
    if (text.empty()) {
        error = fmt::format("{} needs a value", option);
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const long long parsed = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0' || text[0] == '+' || text[0] == ' ') {
        error = fmt::format("{}: '{}' is not a whole number", option, text);
        return false;
    }
    if (errno == ERANGE || parsed > max) {
        error = fmt::format("{}: {} is too large (at most {})", option, text, max);
        return false;
    }
    if (parsed < min) {
        error = fmt::format("{}: {} must be at least {}", option, text, min);
        return false;
    }
    value = parsed;
    return true;
}

namespace {

constexpr int64_t kMaxSide = 1 << 20;

bool parse_seconds(const std::string& option, const std::string& text, double& value, std::string& error) {
    char* end = nullptr;
    errno = 0;
    const double parsed = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !(parsed >= 0) || parsed > 3600) {
        error = fmt::format("{}: '{}' is not a number of seconds from 0 to 3600", option, text);
        return false;
    }
    value = parsed;
    return true;
}

bool parse_format(const std::string& text, OutputFormat& format, std::string& error) {
    if (text == "human")
        format = OutputFormat::Human;
    else if (text == "csv")
        format = OutputFormat::Csv;
    else if (text == "json")
        format = OutputFormat::Json;
    else {
        error = fmt::format("--format: '{}' is not one of human, csv, json", text);
        return false;
    }
    return true;
}

// Products of the sizes must stay inside int indexing, the contract every kernel relies on.
std::string check_products(Track track, const Options& o) {
    auto too_big = [](int64_t a, int64_t b) { return a * b > kMaxElements; };
    if (track == Track::Transpose) {
        if (too_big(o.rows, o.cols))
            return fmt::format("{} x {} has more than 2^31-1 elements, the most the kernels index", o.rows, o.cols);
    } else {
        if (too_big(o.M, o.K) || too_big(o.K, o.N) || too_big(o.M, o.N))
            return fmt::format(
                "M={} N={} K={}: a matrix would have more than 2^31-1 elements, "
                "the most the kernels index",
                o.M, o.N, o.K);
    }
    return {};
}

}  // namespace

bool parse_shape(Track track, const std::string& text, Options& o, std::string& error) {
    const size_t plus = text.find('+');
    const std::string sides = text.substr(0, plus);
    std::vector<int> values;
    for (size_t from = 0; from <= sides.size();) {
        const size_t x = std::min(sides.find('x', from), sides.size());
        int64_t v = 0;
        if (!parse_int_in_range("--shape", sides.substr(from, x - from), 1, kMaxSide, v, error)) return false;
        values.push_back(static_cast<int>(v));
        from = x + 1;
    }
    const size_t wanted = track == Track::Transpose ? 2 : 3;
    if (values.size() != wanted) {
        error =
            fmt::format("--shape: '{}' is not {}[+MISALIGN]", text, track == Track::Transpose ? "ROWSxCOLS" : "MxNxK");
        return false;
    }
    int64_t misalign = 0;
    if (plus != std::string::npos && !parse_int_in_range("--shape", text.substr(plus + 1), 0, 3, misalign, error))
        return false;
    o.misalign = static_cast<int>(misalign);
    if (track == Track::Transpose) {
        o.rows = values[0], o.cols = values[1];
    } else {
        o.M = values[0], o.N = values[1], o.K = values[2];
    }
    return true;
}

namespace {

using Setter = std::function<bool(const std::string&, const std::string&, std::string&)>;

Setter int_setter(int& target, int64_t max, int64_t min = 1) {
    return [&target, min, max](const std::string& name, const std::string& text, std::string& error) {
        int64_t v = 0;
        if (!parse_int_in_range(name, text, min, max, v, error)) return false;
        target = static_cast<int>(v);
        return true;
    };
}

Setter text_setter(std::string& target) {
    return [&target](const std::string& name, const std::string& text, std::string& error) {
        if (text.empty()) error = fmt::format("{} needs a value", name);
        target = text;
        return !text.empty();
    };
}

// The options that take a value, for `track`, writing into `o`.
std::map<std::string, Setter> valued_options(Track track, Options& o) {
    std::map<std::string, Setter> valued = {
        {"--reps", int_setter(o.reps, 100000)},
        {"--warmup", int_setter(o.warmup, 1000, 0)},
        {"--misalign", int_setter(o.misalign, 3, 0)},
        {"--budget", [&o](const std::string& n, const std::string& t,
                          std::string& e) { return parse_seconds(n, t, o.budget_s, e); }},
        {"--min-time", [&o](const std::string& n, const std::string& t,
                            std::string& e) { return parse_seconds(n, t, o.min_time_s, e); }},
        {"--format",
         [&o](const std::string&, const std::string& t, std::string& e) { return parse_format(t, o.format, e); }},
        {"--seed",
         [&o](const std::string& n, const std::string& t, std::string& e) {
             int64_t v = 0;
             if (!parse_int_in_range(n, t, 0, INT64_MAX, v, e)) return false;
             o.seed = static_cast<uint64_t>(v);
             return true;
         }},
        {"--shape",
         [&o, track](const std::string&, const std::string& t, std::string& e) { return parse_shape(track, t, o, e); }},
        {"--solution", text_setter(o.solution_program)},
        {"--previous", text_setter(o.previous_program)},
    };
    int* const first = track == Track::Transpose ? &o.rows : &o.M;
    valued["--size"] = [&o, track, first](const std::string& n, const std::string& t, std::string& e) {
        if (!int_setter(*first, kMaxSide)(n, t, e)) return false;
        if (track == Track::Transpose) o.cols = o.rows;
        if (track == Track::Matmul) o.N = o.K = o.M;
        return true;
    };
    if (track == Track::Transpose) {
        valued["--rows"] = int_setter(o.rows, kMaxSide);
        valued["--cols"] = int_setter(o.cols, kMaxSide);
    } else {
        valued["--m"] = int_setter(o.M, kMaxSide);
        valued["--n"] = int_setter(o.N, kMaxSide);
        valued["--k"] = int_setter(o.K, kMaxSide);
    }
    return valued;
}

const std::map<std::string, Mode>& mode_options() {
    static const std::map<std::string, Mode> modes = {
        {"--check", Mode::Check},
        {"--verdict", Mode::Verdict},
        {"--check-shape", Mode::CheckShape},
        {"--check-in-turn", Mode::CheckInTurn},
        {"--check-round-trip", Mode::CheckRoundTrip},
        {"--check-sanitizer-shapes", Mode::CheckSanitizerShapes},
        {"--sanitize", Mode::Sanitize},
    };
    return modes;
}

std::map<std::string, std::function<void()>> flag_options(Options& o) {
    return {
        {"--no-guards", [&o] { o.guards = false; }},
        {"--say-ready", [&o] { o.say_ready = true; }},
        {"--flush-l2", [&o] { o.flush_l2 = true; }},
        {"--no-references", [&o] { o.references = false; }},
        {"--no-host", [&o] { o.host_rows = false; }},
        {"--unverified", [&o] { o.verified = false; }},
        {"--csv", [&o] { o.format = OutputFormat::Csv; }},
        {"--json", [&o] { o.format = OutputFormat::Json; }},
        {"--help", [&o] { o.help = true; }},
        {"-h", [&o] { o.help = true; }},
    };
}

// The options of --verdict itself, which its timing runs do not take.
bool verdict_option(const std::string& name) {
    return name == "--verdict" || name == "--solution" || name == "--previous";
}

// A mode named after another: one mode a run. Returns the error, or empty.
std::string set_mode(Options& o, const std::string& name, Mode mode, std::string& mode_name) {
    if (!mode_name.empty() && mode_name != name) return fmt::format("{} and {}: one mode at a time", mode_name, name);
    o.mode = mode;
    mode_name = name;
    return {};
}

}  // namespace

ParseOutcome parse_options(Track track, int argc, const char* const* argv) {
    ParseOutcome out;
    Options& o = out.options;
    const auto valued = valued_options(track, o);
    const auto flags = flag_options(o);
    std::string mode_name;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        const int first = i;
        bool has_inline_value = false;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            has_inline_value = true;
        }
        const auto mode = mode_options().find(arg);
        const auto flag = flags.find(arg);
        const auto v = valued.find(arg);
        if (!has_inline_value && mode != mode_options().end()) {
            out.error = set_mode(o, arg, mode->second, mode_name);
        } else if (!has_inline_value && flag != flags.end()) {
            flag->second();
        } else if (v == valued.end()) {
            out.error = fmt::format("unknown option '{}' (try --help)", argv[i]);
        } else if (!has_inline_value && i + 1 >= argc) {
            out.error = fmt::format("{} needs a value", arg);
        } else {
            if (!has_inline_value) value = argv[++i];
            v->second(arg, value, out.error);
        }
        if (!out.ok()) return out;
        if (!verdict_option(arg)) o.timing_args.insert(o.timing_args.end(), argv + first, argv + i + 1);
    }
    // make check times the student's code verified, always: a kernel wrong only after many launches must FAIL.
    if (o.mode == Mode::Verdict && !o.verified)
        out.error = "--unverified is for the solutions' timing runs; make check verifies your code's";
    else if (o.mode != Mode::OneSize && !o.verified)
        out.error = fmt::format("--unverified is for a timed run; {} checks every output it reads", mode_name);
    else
        out.error = check_products(track, o);
    return out;
}

std::string usage_text(Track track, const std::string& program) {
    const bool t = track == Track::Transpose;
    return fmt::format(
        "usage: {} [options]\n"
        "{}"
        "  --size S            square problem of side S\n"
        "  --check             the verdict: every shape of the battery (in one process, a shape that crashes\n"
        "                      it and those after it in a process each), plus compute-sanitizer's memcheck,\n"
        "                      racecheck and synccheck at two small shapes (make check)\n"
        "  --verdict --solution PATH [--previous PATH]\n"
        "                      make check: --check, then (where it passes) this program timed at one size, then\n"
        "                      the programs named, the same way; ends with one VERDICT line. The other options\n"
        "                      are the timing runs' (--min-time 0.2 unless given)\n"
        "  --shape SHAPE       ROWSxCOLS[+MISALIGN] or MxNxK[+MISALIGN], as the battery names its shapes\n"
        "  --check-shape       one checked run at the size given (no timing): output, guard zones, inputs\n"
        "  --check-in-turn     every shape of the battery in this process, in turn (what --check starts)\n"
        "  --check-round-trip  step 1: one checked run of *_from_host alone at the size given, or SKIP where\n"
        "                      this machine has too little memory for it (--check's shape of over 2^31 bytes)\n"
        "  --check-sanitizer-shapes\n"
        "                      the shapes --check and --sanitize run under compute-sanitizer, in turn, in this\n"
        "                      process (what each tool runs)\n"
        "  --misalign N        with --check-shape: the matrices start N (0-3) floats past an aligned address\n"
        "  --no-guards         no canaries around the matrices and no poison in shared memory, so the first\n"
        "                      kernel launched is the step's (for compute-sanitizer and make profile)\n"
        "  --say-ready         with a --check-... run: print the line --check waits for once the context is up\n"
        "  --sanitize          memcheck, racecheck and synccheck at two small shapes (make sanitize)\n"
        "  --reps N            timed runs, at least (default 20)\n"
        "  --min-time SECONDS  keep timing past --reps until this long has passed (default 1, 0: --reps runs)\n"
        "  --warmup N          untimed runs first (default 2)\n"
        "  --budget SECONDS    stop timing after this long, never under 3 runs (default 5, 0: no limit)\n"
        "  --flush-l2          evict the L2 cache before every timed run\n"
        "  --no-references     skip the reference measurements ({})\n"
        "  --no-host           step 1: skip timing the CPU version and the round trips through host memory\n"
        "  --unverified        time the step without checking its output (make check's runs of the solutions,\n"
        "                      which make test checks); the step's row reads UNCHECKED\n"
        "  --format F          human (default), csv or json; --csv and --json are short for it\n"
        "  --seed N            seed of the random inputs\n"
        "exit codes: 0 correct, 1 wrong answer, 2 bad option, 3 no CUDA device, 4 not enough device (or host)\n"
        "            memory, 5 CUDA error\n",
        program,
        t ? "  --rows R --cols C   transpose an R x C matrix (default 8192 x 8192)\n"
          : "  --m M --n N --k K   C (M x N) = A (M x K) * B (K x N), column-major (default 4096 each)\n",
        t ? "copy kernel, cudaMemcpy, cuBLAS" : "cuBLAS");
}

}  // namespace workshop
