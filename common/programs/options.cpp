// Options are parsed by hand rather than with CLI11 or cxxopts. The programs take a dozen flags and integers,
// and each bad value must give the one error line the tests expect ("--reps: 'x' is not a whole number"),
// which with either library means a custom validator per option anyway: the parsing that would be left to
// the library is the table lookup in parse_options. Neither is packaged on every machine the workshop runs on
// (a cluster's GPU nodes often cannot reach a package registry), so it would have to be vendored as well.
#include "programs/options.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <functional>

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

ParseOutcome parse_options(Track track, int argc, const char* const* argv) {
    ParseOutcome out;
    Options& o = out.options;
    auto int_setter = [&](int& target, int64_t max, int64_t min = 1) {
        return [&target, min, max](const std::string& name, const std::string& text, std::string& error) {
            int64_t v = 0;
            if (!parse_int_in_range(name, text, min, max, v, error)) return false;
            target = static_cast<int>(v);
            return true;
        };
    };
    using Setter = std::function<bool(const std::string&, const std::string&, std::string&)>;
    std::map<std::string, Setter> valued = {
        {"--reps", int_setter(o.reps, 100000)},
        {"--warmup", int_setter(o.warmup, 1000, 0)},
        {"--misalign", int_setter(o.misalign, 3, 0)},
        {"--budget", [&](const std::string& n, const std::string& t,
                         std::string& e) { return parse_seconds(n, t, o.budget_s, e); }},
        {"--min-time", [&](const std::string& n, const std::string& t,
                           std::string& e) { return parse_seconds(n, t, o.min_time_s, e); }},
        {"--format",
         [&](const std::string&, const std::string& t, std::string& e) { return parse_format(t, o.format, e); }},
        {"--seed",
         [&](const std::string& n, const std::string& t, std::string& e) {
             int64_t v = 0;
             if (!parse_int_in_range(n, t, 0, INT64_MAX, v, e)) return false;
             o.seed = static_cast<uint64_t>(v);
             return true;
         }},
    };
    if (track == Track::Transpose) {
        valued["--rows"] = int_setter(o.rows, kMaxSide);
        valued["--cols"] = int_setter(o.cols, kMaxSide);
        valued["--size"] = [&](const std::string& n, const std::string& t, std::string& e) {
            if (!int_setter(o.rows, kMaxSide)(n, t, e)) return false;
            o.cols = o.rows;
            return true;
        };
    } else {
        valued["--m"] = int_setter(o.M, kMaxSide);
        valued["--n"] = int_setter(o.N, kMaxSide);
        valued["--k"] = int_setter(o.K, kMaxSide);
        valued["--size"] = [&](const std::string& n, const std::string& t, std::string& e) {
            if (!int_setter(o.M, kMaxSide)(n, t, e)) return false;
            o.N = o.K = o.M;
            return true;
        };
    }
    const std::map<std::string, std::function<void()>> flags = {
        {"--check", [&] { o.check = true; }},
        {"--check-shape", [&] { o.check_shape = true; }},
        {"--check-in-turn", [&] { o.check_in_turn = true; }},
        {"--check-round-trip", [&] { o.check_round_trip = true; }},
        {"--check-sanitizer-shapes", [&] { o.check_sanitizer_shapes = true; }},
        {"--sanitize", [&] { o.sanitize = true; }},
        {"--no-guards", [&] { o.guards = false; }},
        {"--say-ready", [&] { o.say_ready = true; }},
        {"--flush-l2", [&] { o.flush_l2 = true; }},
        {"--no-references", [&] { o.references = false; }},
        {"--no-host", [&] { o.host_rows = false; }},
        {"--csv", [&] { o.format = OutputFormat::Csv; }},
        {"--json", [&] { o.format = OutputFormat::Json; }},
        {"--help", [&] { o.help = true; }},
        {"-h", [&] { o.help = true; }},
    };

    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string value;
        bool has_inline_value = false;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            has_inline_value = true;
        }
        if (auto f = flags.find(arg); f != flags.end() && !has_inline_value) {
            f->second();
            continue;
        }
        auto v = valued.find(arg);
        if (v == valued.end()) {
            out.error = fmt::format("unknown option '{}' (try --help)", argv[i]);
            return out;
        }
        if (!has_inline_value) {
            if (i + 1 >= argc) {
                out.error = fmt::format("{} needs a value", arg);
                return out;
            }
            value = argv[++i];
        }
        if (!v->second(arg, value, out.error)) return out;
    }
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
