// The checked run of the step linked into this program: random inputs, a NaN-poisoned output inside guard
// zones, the launch and the wait checked, then verification of the output, the guards and the inputs.
// Shared by the programs (their battery and their timed size) and the GPU tests, so all judge a kernel alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/guarded_matrix.hpp"
#include "verify/matrix_data.hpp"
#include "step/step_api.cuh"
#include "verify/verify.hpp"

namespace workshop {

struct CheckResult {
    Verdict verdict;
    LaunchInfo launch;
    bool launched_kernel() const { return launch.kernel != nullptr; }
    bool device_usable() const { return verdict.failure.empty(); }  // after a fault, nothing more can run
    // Worth timing, right or wrong: not after a fault, nor when every call leaks (each timed launch would leave
    // device memory behind, thousands of times over).
    bool timeable() const { return device_usable() && verdict.leak.empty(); }
};

// What follows a right output at the checked size: the further calls (for leaks, and a third launch verified) and
// the calls at larger sizes. Where they have passed already (a later check of the same problem, after the timing;
// make check's timing run, after its battery), a check needs only its own launch verified: Skip. A wrong output is
// launched once more either way, to tell a race from a mistake.
enum class FurtherCalls { Check, Skip };

// How a problem of either track is checked: its output poisoned, the step launched and its output judged, its
// guards and inputs looked at, then the further calls; where the output was wrong, a map and the launch's blocks.
// A track's problem says only what it is: how to launch its step, verify an output, and see its inputs changed.
class CheckedProblem {
public:
    virtual ~CheckedProblem() = default;
    CheckResult run_checked(FurtherCalls further = FurtherCalls::Check);
    virtual LaunchInfo launch() = 0;  // the step's launch alone, for timing
    virtual std::string label() const = 0;

protected:
    CheckedProblem(const char* function, CheckSetup setup) : function_(function), setup_(setup) {}
    virtual GuardedMatrix& output() = 0;                    // the matrix the step writes
    virtual Verdict verify(const float* output) const = 0;  // an output read back, against the reference
    virtual int64_t input_words_changed() const = 0;        // in the inputs on the device, since their upload
    virtual void check_calls_at_larger_sizes(Verdict& verdict) const = 0;  // memory kept that grows with the size
    virtual int64_t output_rows() const = 0;                               // the output's shape, for the map
    virtual int64_t output_cols() const = 0;

    const char* function_;  // the step's function, as the verdict names it
    CheckSetup setup_;

private:
    CheckResult launch_and_verify(FurtherCalls further);  // run_checked, less the copies' directions

    // The last output read back, and its verdict where it was right: a later launch with the same bits is right.
    std::vector<float> out_;
    std::optional<Verdict> right_;
};

class TransposeProblem : public CheckedProblem {
public:
    TransposeProblem(int rows, int cols, uint64_t seed, CheckSetup setup = {});
    LaunchInfo launch() override;
    std::string label() const override;
    float* d_in() { return d_in_.get(); }
    float* d_out() { return d_out_.get(); }
    const std::vector<float>& in() const { return in_; }

private:
    GuardedMatrix& output() override { return d_out_; }
    Verdict verify(const float* output) const override;
    int64_t input_words_changed() const override;
    void check_calls_at_larger_sizes(Verdict& verdict) const override;
    int64_t output_rows() const override { return cols_; }
    int64_t output_cols() const override { return rows_; }

    int rows_, cols_;
    std::vector<float> in_;
    GuardedMatrix d_in_, d_out_;
};

CheckResult check_transpose_on_device(int rows, int cols, uint64_t seed, CheckSetup setup = {});
Verdict check_transpose_from_host(int rows, int cols, uint64_t seed);  // step 1 programs only

// Seeded random inputs of a matmul (A: M x K, B: K x N), into memory the caller holds.
void fill_matmul_inputs(float* A, float* B, int M, int N, int K, uint64_t seed);

// The same inputs in host matrices of their own.
struct MatmulInputs {
    HostMatrix A, B;
    MatmulInputs(int M, int N, int K, uint64_t seed);
};

// C (M x N) against the reference product of A and B.
Verdict verify_matmul_result(const float* A, const float* B, const float* C, int M, int N, int K);

class MatmulProblem : public CheckedProblem {
public:
    MatmulProblem(int M, int N, int K, uint64_t seed, CheckSetup setup = {});
    LaunchInfo launch() override;
    std::string label() const override;
    const float* d_A() const { return d_A_.get(); }
    const float* d_B() const { return d_B_.get(); }
    float* d_C() { return d_C_.get(); }
    const MatmulInputs& inputs() const { return in_; }

private:
    GuardedMatrix& output() override { return d_C_; }
    Verdict verify(const float* output) const override;
    int64_t input_words_changed() const override;
    void check_calls_at_larger_sizes(Verdict& verdict) const override;
    int64_t output_rows() const override { return M_; }
    int64_t output_cols() const override { return N_; }

    int M_, N_, K_;
    MatmulInputs in_;
    GuardedMatrix d_A_, d_B_, d_C_;
};

CheckResult check_matmul_on_device(int M, int N, int K, uint64_t seed, CheckSetup setup = {});
Verdict check_matmul_from_host(int M, int N, int K, uint64_t seed);  // step 1 programs only

// Which reference a matmul of this size is checked against: the CPU in double up to this many
// multiply-adds, cuBLAS in FP32 beyond (the CPU would take too long).
constexpr double kCpuReferenceMaxMacs = 3e8;

// The growth leak check's two larger problems are made only up to this many floats (A, B and C, or the input and
// the output, of the larger one): the battery's small shapes are enough to see a leak, and its large ones, and
// make run's size, would take seconds and hundreds of megabytes more.
constexpr size_t kMostFloatsForTheGrowthCheck = size_t{1} << 23;

}  // namespace workshop
