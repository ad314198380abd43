// The matmul program: links one step file (the student's or a solution) and runs it through the harness.
//   program                  one size (default M = N = K = 4096): checked, timed, next to cuBLAS and the FP32 peak
//   program --check          the shape battery and the memory checks
//   program --verdict ...    make check: the battery, then the timing beside the solutions', and the verdict line
//   program --check-in-turn  every shape of the battery, checked one after the other (what --check starts)
//   program --check-shape    one shape, checked (for a shape that crashed or hung the one above)
//   program --sanitize       memcheck, racecheck and synccheck at two small shapes
#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

#include "verify/cpu_reference.hpp"
#include "measure/cublas_reference.hpp"
#include "step/device_buffer.cuh"
#include "verify/matrix_data.hpp"
#include "measure/metrics.hpp"
#include "programs/one_size_run.hpp"
#include "programs/program_support.hpp"
#include "check/shapes.hpp"

using namespace workshop;

namespace {

const std::string kTrack = "matmul";
const std::string kUnit = "GFLOP/s";

// Checked before anything is allocated, so that a shape too large for this machine gets one line instead of a
// failed cudaMalloc, minutes of swapping or the kernel's OOM killer. On the host: A, B, C brought back, the
// reference C (in double for a small product) and A or B brought back again (to see that it was left alone);
// step 1 holds pinned copies of all three as well.
void require_memory_for(const Options& o) {
    const std::string shape = fmt::format("{}x{}x{}", o.M, o.N, o.K);
    const size_t a = static_cast<size_t>(o.M) * o.K, b = static_cast<size_t>(o.K) * o.N,
                 c = static_cast<size_t>(o.M) * o.N;
    const size_t guards =
        2 * (GuardedMatrix::guard_words(a) + GuardedMatrix::guard_words(b) + GuardedMatrix::guard_words(c));
    require_device_memory((a + b + 2 * c + guards) * sizeof(float) + (64u << 20),
                          "a " + shape + " matmul (A, B, C and a reference C)");
    const size_t host_floats = kStep == 1 ? 2 * (a + b) + 4 * c : a + b + std::max(a, b) + 3 * c;
    require_host_memory(host_floats * sizeof(float), "a " + shape + " matmul (its host copies)");
}

// Step 1's round trip through host memory at the options' size; nothing to check in the other steps.
std::function<Verdict()> round_trip_check(const Options& o) {
#ifdef WORKSHOP_HOST_API
    return [o] { return check_matmul_from_host(o.M, o.N, o.K, o.seed); };
#else
    (void)o;
    return nullptr;
#endif
}

int check_one_shape(const Options& o) {
    require_memory_for(o);
    const CheckResult kernel = check_matmul_on_device(o.M, o.N, o.K, o.seed, {o.misalign, o.guards});
    return report_checked_shape(kStep, kernel, round_trip_check(o), "matmul");
}

// --check-round-trip, make check's very large shape in step 1: matmul_from_host alone, with a B too large for a
// byte count in an int. The memory is checked before the step's own code runs, so that a cudaMalloc of the
// student's that fails there is the student's: where it does not fit, the shape is skipped, not failed. The
// reference is cuBLAS's (the product is past the CPU's share), on copies of its own once the student's are freed.
int check_round_trip(const Options& o) {
#ifdef WORKSHOP_HOST_API
    const std::string what = fmt::format("the round trip of a {}x{}x{} matmul", o.M, o.N, o.K);
    const size_t a = static_cast<size_t>(o.M) * o.K, b = static_cast<size_t>(o.K) * o.N,
                 c = static_cast<size_t>(o.M) * o.N;
    require_device_memory((a + b + c) * sizeof(float) + (64u << 20), what + " (A, B and C on the device)",
                          WhenShort::Skip);
    require_host_memory((a + b + 2 * c) * sizeof(float), what + " (its host copies)", WhenShort::Skip);
    return report_shape(check_matmul_from_host(o.M, o.N, o.K, o.seed), "matmul_from_host: ");
#else
    (void)o;
    return kExitBadUsage;  // never reached: run_mode turns the option down outside step 1
#endif
}

// Step 1's lesson beyond the kernel: the CPU baseline, and what the trip to the GPU and back costs.
void add_host_rows(const Options& o, const DeviceFacts& dev, const MatmulInputs& in, std::vector<ResultRow>& rows) {
#ifdef WORKSHOP_HOST_API
    const std::string shape = fmt::format("{}x{}x{}", o.M, o.N, o.K);
    const double flops = matmul_flops(o.M, o.N, o.K);
    TimingPlan plan = timing_plan(o);
    plan.warmup = 1;
    std::vector<float> C(static_cast<size_t>(o.M) * o.N);
    const Timing cpu = time_on_host([&] { matmul_cpu(in.A.data(), in.B.data(), C.data(), o.M, o.N, o.K); }, plan);
    rows.push_back(
        make_row(kTrack, "CPU (OpenMP)", "cpu", shape, cpu, gigaflops_per_second(flops, cpu.median_s()), kUnit, dev));

    PinnedBuffer<float> A(in.A.size()), B(in.B.size()), pinned_C(C.size());
    std::copy(in.A.begin(), in.A.end(), A.get());
    std::copy(in.B.begin(), in.B.end(), B.get());
    const Timing pageable =
        time_on_host([&] { matmul_from_host(in.A.data(), in.B.data(), C.data(), o.M, o.N, o.K); }, plan);
    const Timing pinned =
        time_on_host([&] { matmul_from_host(A.get(), B.get(), pinned_C.get(), o.M, o.N, o.K); }, plan);
    for (const auto& [name, t] : {std::pair{"round trip, pageable host memory", pageable},
                                  std::pair{"round trip, pinned host memory", pinned}}) {
        ResultRow r =
            make_row(kTrack, name, "transfer", shape, t, gigaflops_per_second(flops, t.median_s()), kUnit, dev);
        r.note = "matmul_from_host: allocate, copy A and B in, kernel, copy C out, free";
        rows.push_back(r);
    }
#else
    (void)o, (void)dev, (void)in, (void)rows;
#endif
}

// The step and the yardsticks, on the step's own buffers; add_reference_rows takes their timings in this order.
// Only cuBLAS FP32 is timed in turn with the step. The TF32 tensor-core run is timed on its own, after them: it
// can hold the GPU at its power cap, and the clocks it leaves behind would move the others' medians (RESULTS.md,
// "Matmul at the power cap").
StepAndReferenceTimings time_step_and_yardsticks(const Options& o, MatmulProblem& problem, bool kernel_pending) {
    const float *A = problem.d_A(), *B = problem.d_B();
    float* C = problem.d_C();
    std::optional<Cublas> cublas;
    std::vector<std::function<void()>> in_turn;
    if (o.references) {
        cublas.emplace();
        in_turn.push_back([&] { cublas->sgemm_fp32(A, B, C, o.M, o.N, o.K); });
    }
    const std::function<void()> step = kernel_pending ? std::function<void()>() : [&] { problem.launch(); };
    StepAndReferenceTimings t = time_step_and_references(step, in_turn, timing_plan(o));
    if (o.references)
        t.references.push_back(time_on_gpu([&] { cublas->sgemm_tf32(A, B, C, o.M, o.N, o.K); }, timing_plan(o)));
    return t;
}

void add_reference_rows(const Options& o, const DeviceFacts& dev, const std::vector<Timing>& t,
                        std::vector<ResultRow>& rows) {
    const std::string shape = fmt::format("{}x{}x{}", o.M, o.N, o.K);
    const double flops = matmul_flops(o.M, o.N, o.K);
    const Timing &fp32 = t[0], &tf32 = t[1];
    rows.push_back(make_row(kTrack, "cuBLAS SGEMM FP32", "reference", shape, fp32,
                            gigaflops_per_second(flops, fp32.median_s()), kUnit, dev));
    rows.back().note = "strict FP32 (CUBLAS_COMPUTE_32F_PEDANTIC): the yardstick";
    rows.push_back(make_row(kTrack, "cuBLAS SGEMM TF32 tensor cores", "reference", shape, tf32,
                            gigaflops_per_second(flops, tf32.median_s()), kUnit, dev));
    rows.back().note = "inputs rounded to TF32: a different contract, shown for scale";
    ResultRow peak = make_row(kTrack, "FP32 peak", "limit", shape, Timing{}, dev.fp32_gflops, kUnit, dev);
    peak.note = fmt::format("{} SMs x 128 lanes x 2 x {} MHz", dev.sm_count, dev.sm_clock_khz / 1000);
    rows.push_back(peak);
}

int run_one_size(const Options& o, const DeviceFacts& dev) {
    const std::string shape = fmt::format("{}x{}x{}", o.M, o.N, o.K);
    require_memory_for(o);

    // The checked run: poisoned output inside guard zones, so every element must be written by this launch
    // and nothing around it. (--no-guards, for make profile: no zones, so the first kernel launched is the step's.)
    MatmulProblem problem(o.M, o.N, o.K, o.seed, CheckSetup{0, o.guards});
    const MatmulInputs& in = problem.inputs();
    const CheckResult checked = o.verified ? problem.run_checked(further_calls_before_timing())
                                           : launched_unverified([&] { return problem.launch(); });
    OneSizeRun run(kStep, "matmul", shape, checked, o.verified);
    if (const auto ended = run.check_before_timing(round_trip_check(o))) return *ended;
    const StepAndReferenceTimings timings = time_step_and_yardsticks(o, problem, run.kernel_pending());
    const auto again = [&] { return problem.run_checked(FurtherCalls::Skip).verdict; };
    if (const auto ended = run.check_after_timing(
            again, [&] { problem.launch(); }, timings.step))
        return *ended;

    const double flops = matmul_flops(o.M, o.N, o.K);
    const auto step_row = [&](const Timing& t) {
        return make_row(kTrack, program_label(), "step", shape, t, gigaflops_per_second(flops, t.median_s()), kUnit,
                        dev);
    };
    if (run.add_step_row(timings.step, step_row)) {
        const double intensity = arithmetic_intensity(flops, matmul_min_bytes(o.M, o.N, o.K));
        const double balance = machine_balance(dev.fp32_gflops, dev.dram_gbps);
        const LaunchModel model = model_launch(checked.launch, dev);
        run.details.push_back("launch: " + describe_launch(model));
        run.details.push_back(fmt::format(
            "model: at best {:.0f} flop per DRAM byte (each matrix moved once) against a machine balance of {:.1f} "
            "flop/byte; likely limiter: {} (if the kernel reuses what it loads; the FP32 peak is the ceiling)",
            intensity, balance, limiter_name(likely_limiter(intensity, balance, model.blocks, dev.sm_count))));
    }
    if (o.host_rows) add_host_rows(o, dev, in, run.rows);
    if (o.references) add_reference_rows(o, dev, timings.references, run.rows);
    set_percentages(run.rows, "cuBLAS SGEMM FP32", dev.fp32_gflops);
    for (auto& r : run.rows)  // the tensor cores have their own, far higher peak: a % of the FP32 peak means nothing
        if (r.name == "cuBLAS SGEMM TF32 tensor cores") r.pct_of_peak = -1;

    const std::string title = fmt::format(
        "{}\nmatmul C = A * B, M={} N={} K={} fp32 column-major, {} ({:.1f} GFLOP per run, median of "
        "the timed runs)",
        describe(dev), o.M, o.N, o.K, program_label(), flops / 1e9);
    return run.report(o, title, "cuBLAS");
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_or_exit(Track::Matmul, argc, argv);
    return run_mode(o, kTrack, kStep, matmul_battery(), {matmul_sanitizer_shapes(), matmul_round_trip_shape()},
                    check_one_shape, check_round_trip, run_one_size);
}
