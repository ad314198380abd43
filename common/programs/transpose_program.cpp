// The transpose program: links one step file (the student's or a solution) and runs it through the harness.
//   program                  one size (default 8192 x 8192): checked, timed, next to the device's limits
//   program --check          the shape battery and the memory checks
//   program --verdict ...    make check: the battery, then the timing beside the solutions', and the verdict line
//   program --check-in-turn  every shape of the battery, checked one after the other (what --check starts)
//   program --check-shape    one shape, checked (for a shape that crashed or hung the one above)
//   program --sanitize       memcheck, racecheck and synccheck at two small shapes
#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <vector>

#include "verify/cpu_reference.hpp"
#include "measure/cublas_reference.hpp"
#include "step/device_buffer.cuh"
#include "measure/device_kernels.cuh"
#include "verify/matrix_data.hpp"
#include "measure/metrics.hpp"
#include "programs/one_size_run.hpp"
#include "programs/program_support.hpp"
#include "check/shapes.hpp"

using namespace workshop;

namespace {

const std::string kTrack = "transpose";
const std::string kUnit = "GB/s";

// Checked before anything is allocated, so that a shape too large for this machine gets one line instead of a
// failed cudaMalloc, minutes of swapping or the kernel's OOM killer. On the host: the input, the output brought
// back and the input brought back again (to see that it was left alone); step 1 holds two pinned copies as well.
void require_memory_for(const Options& o) {
    const size_t n = static_cast<size_t>(o.rows) * o.cols;
    const std::string shape = fmt::format("{}x{}", o.rows, o.cols);
    const size_t guards = 2 * 2 * GuardedMatrix::guard_words(n);
    require_device_memory((2 * n + guards) * sizeof(float) + (64u << 20),
                          "a " + shape + " transpose (input and output)");
    require_host_memory((kStep == 1 ? 4 : 3) * n * sizeof(float), "a " + shape + " transpose (its host copies)");
}

// Step 1's round trip through host memory at the options' size; nothing to check in the other steps.
std::function<Verdict()> round_trip_check(const Options& o) {
#ifdef WORKSHOP_HOST_API
    return [o] { return check_transpose_from_host(o.rows, o.cols, o.seed); };
#else
    (void)o;
    return nullptr;
#endif
}

int check_one_shape(const Options& o) {
    require_memory_for(o);
    const CheckResult kernel = check_transpose_on_device(o.rows, o.cols, o.seed, {o.misalign, o.guards});
    return report_checked_shape(kStep, kernel, round_trip_check(o), "transpose");
}

// --check-round-trip, make check's very large shape in step 1: transpose_from_host alone, with matrices too large
// for a byte count in an int. The memory is checked before the step's own code runs, so that a cudaMalloc of the
// student's that fails there is the student's: where it does not fit, the shape is skipped, not failed.
int check_round_trip(const Options& o) {
#ifdef WORKSHOP_HOST_API
    const size_t n = static_cast<size_t>(o.rows) * o.cols;
    const std::string what = fmt::format("the round trip of a {}x{} transpose", o.rows, o.cols);
    require_device_memory(2 * n * sizeof(float) + (64u << 20), what + " (its two device buffers)", WhenShort::Skip);
    require_host_memory(2 * n * sizeof(float), what + " (its host copies)", WhenShort::Skip);
    return report_shape(check_transpose_from_host(o.rows, o.cols, o.seed), "transpose_from_host: ");
#else
    (void)o;
    return kExitBadUsage;  // never reached: run_mode turns the option down outside step 1
#endif
}

// Step 1's lesson beyond the kernel: what the trip to the GPU and back costs, from pageable and pinned memory.
void add_transfer_rows(const Options& o, const DeviceFacts& dev, const std::vector<float>& in, float* d_in,
                       std::vector<ResultRow>& rows, std::vector<std::string>& details) {
#ifdef WORKSHOP_HOST_API
    const size_t n = in.size();
    const double bytes = n * sizeof(float);
    const std::string shape = fmt::format("{}x{}", o.rows, o.cols);
    TimingPlan plan = timing_plan(o);
    plan.warmup = 1;
    std::vector<float> out(n);

    const Timing cpu = time_on_host([&] { transpose_cpu(in.data(), out.data(), o.rows, o.cols); }, plan);
    rows.push_back(make_row(kTrack, "CPU (OpenMP)", "cpu", shape, cpu,
                            gigabytes_per_second(transpose_bytes(o.rows, o.cols), cpu.median_s()), kUnit, dev));

    PinnedBuffer<float> pinned_in(n), pinned_out(n);
    std::copy(in.begin(), in.end(), pinned_in.get());
    const Timing pageable_trip =
        time_on_host([&] { transpose_from_host(in.data(), out.data(), o.rows, o.cols); }, plan);
    const Timing pinned_trip =
        time_on_host([&] { transpose_from_host(pinned_in.get(), pinned_out.get(), o.rows, o.cols); }, plan);
    for (const auto& [name, t] : {std::pair{"round trip, pageable host memory", pageable_trip},
                                  std::pair{"round trip, pinned host memory", pinned_trip}}) {
        ResultRow r = make_row(kTrack, name, "transfer", shape, t,
                               gigabytes_per_second(transpose_bytes(o.rows, o.cols), t.median_s()), kUnit, dev);
        r.note = "transpose_from_host: allocate, copy in, kernel, copy out, free";
        rows.push_back(r);
    }
    const struct {
        const char* name;
        void* dst;
        const void* src;
        cudaMemcpyKind kind;
    } copies[] = {
        {"copy host->device, pageable", d_in, in.data(), cudaMemcpyHostToDevice},
        {"copy host->device, pinned", d_in, pinned_in.get(), cudaMemcpyHostToDevice},
        {"copy device->host, pageable", out.data(), d_in, cudaMemcpyDeviceToHost},
        {"copy device->host, pinned", pinned_out.get(), d_in, cudaMemcpyDeviceToHost},
    };
    for (const auto& c : copies) {
        const Timing t = time_on_gpu([&] { CUDA_CHECK(cudaMemcpy(c.dst, c.src, n * sizeof(float), c.kind)); }, plan);
        rows.push_back(
            make_row(kTrack, c.name, "transfer", shape, t, gigabytes_per_second(bytes, t.median_s()), kUnit, dev));
    }
    details.push_back(
        "transfers: GB/s of the copies count the bytes crossing the bus once; the round trips count the "
        "transpose's own bytes, to compare with the kernel");
#else
    (void)o, (void)dev, (void)in, (void)d_in, (void)rows, (void)details;
#endif
}

// The yardsticks, launched on the step's own buffers; add_reference_rows takes their timings in this order: the
// copy kernel with each of its block sizes, then cudaMemcpy and cuBLAS.
std::vector<std::function<void()>> reference_launches(const Options& o, float* d_in, float* d_out, Cublas& cublas) {
    const int64_t n = int64_t{o.rows} * o.cols;
    std::vector<std::function<void()>> launches;
    for (const int threads : kCopyBlockSizes) launches.push_back([=] { launch_copy(d_in, d_out, n, threads); });
    launches.push_back([=] { CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
    launches.push_back([=, &cublas] { cublas.transpose(d_in, d_out, o.rows, o.cols); });
    return launches;
}

void add_reference_rows(const Options& o, const DeviceFacts& dev, const std::vector<Timing>& t,
                        std::vector<ResultRow>& rows) {
    const double bytes = transpose_bytes(o.rows, o.cols);
    const std::string shape = fmt::format("{}x{}", o.rows, o.cols);
    // The copy kernel's row is its faster block size here: the ceiling must be the best copy this GPU runs.
    constexpr size_t kCopies = std::size(kCopyBlockSizes);
    const auto fastest = std::min_element(t.begin(), t.begin() + kCopies,
                                          [](const Timing& a, const Timing& b) { return a.median_ms < b.median_ms; });
    const Timing &copy = *fastest, &memcpy = t[kCopies], &geam = t[kCopies + 1];
    rows.push_back(make_row(kTrack, "copy kernel", "reference", shape, copy,
                            gigabytes_per_second(bytes, copy.median_s()), kUnit, dev));
    rows.back().note =
        fmt::format("__restrict__, float4, {}-thread blocks (the faster size here): the ceiling for a transpose",
                    kCopyBlockSizes[fastest - t.begin()]);
    rows.push_back(make_row(kTrack, "cudaMemcpy device-to-device", "reference", shape, memcpy,
                            gigabytes_per_second(bytes, memcpy.median_s()), kUnit, dev));
    rows.push_back(make_row(kTrack, "cuBLAS transpose (cublasSgeam)", "reference", shape, geam,
                            gigabytes_per_second(bytes, geam.median_s()), kUnit, dev));
    ResultRow peak =
        make_row(kTrack, "theoretical DRAM bandwidth", "limit", shape, Timing{}, dev.dram_gbps, kUnit, dev);
    peak.note = fmt::format("{} kHz x 2 x {} bits", dev.memory_clock_khz, dev.bus_width_bits);
    rows.push_back(peak);
}

int run_one_size(const Options& o, const DeviceFacts& dev) {
    const std::string shape = fmt::format("{}x{}", o.rows, o.cols);
    require_memory_for(o);

    // The checked run: poisoned output inside guard zones, so every element must be written by this launch
    // and nothing around it. (--no-guards, for make profile: no zones, so the first kernel launched is the step's.)
    TransposeProblem problem(o.rows, o.cols, o.seed, CheckSetup{0, o.guards});
    const std::vector<float>& in = problem.in();
    const CheckResult checked = o.verified ? problem.run_checked(further_calls_before_timing())
                                           : launched_unverified([&] { return problem.launch(); });
    OneSizeRun run(kStep, "transpose", shape, checked, o.verified);
    if (const auto ended = run.check_before_timing(round_trip_check(o))) return *ended;
    // The step and its yardsticks, timed in turn.
    std::optional<Cublas> cublas;
    std::vector<std::function<void()>> references;
    if (o.references) references = reference_launches(o, problem.d_in(), problem.d_out(), cublas.emplace());
    const std::function<void()> launch = [&] { problem.launch(); };
    // Every timed run follows one run of the copy kernel, so that none reads faster for what ran before it
    // (time_on_gpu_in_turn says why).
    const auto copy_first = [&] { launch_copy(problem.d_in(), problem.d_out(), int64_t{o.rows} * o.cols); };
    const StepAndReferenceTimings timings = time_step_and_references(
        run.kernel_pending() ? std::function<void()>() : launch, references, timing_plan(o), copy_first);
    const auto again = [&] { return problem.run_checked(FurtherCalls::Skip).verdict; };
    if (const auto ended = run.check_after_timing(again, launch, timings.step)) return *ended;

    const double bytes = transpose_bytes(o.rows, o.cols);
    const auto step_row = [&](const Timing& t) {
        return make_row(kTrack, program_label(), "step", shape, t, gigabytes_per_second(bytes, t.median_s()), kUnit,
                        dev);
    };
    if (run.add_step_row(timings.step, step_row)) {
        const LaunchModel model = model_launch(checked.launch, dev);
        const double balance = machine_balance(dev.fp32_gflops, dev.dram_gbps);
        run.details.push_back("launch: " + describe_launch(model));
        run.details.push_back(fmt::format(
            "model: 0 flop per byte moved against a machine balance of {:.1f} flop/byte, so the copy kernel's "
            "bandwidth is the ceiling; likely limiter: {}",
            balance, limiter_name(likely_limiter(0.0, balance, model.blocks, dev.sm_count))));
    }
    if (o.host_rows) add_transfer_rows(o, dev, in, problem.d_in(), run.rows, run.details);
    if (o.references) add_reference_rows(o, dev, timings.references, run.rows);

    set_percentages(run.rows, "copy kernel", dev.dram_gbps);
    if (const std::string note = l2_note(bytes, dev); !note.empty()) run.details.push_back("note: " + note);

    const std::string title = fmt::format(
        "{}\ntranspose {} fp32, {} ({:.0f} MB moved per run, median of the timed "
        "runs)",
        describe(dev), shape, program_label(), bytes / 1e6);
    return run.report(o, title, "copy");
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_or_exit(Track::Transpose, argc, argv);
    return run_mode(o, kTrack, kStep, transpose_battery(), {transpose_sanitizer_shapes(), transpose_round_trip_shape()},
                    check_one_shape, check_round_trip, run_one_size);
}
