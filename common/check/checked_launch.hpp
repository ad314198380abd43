// The checked run of a step's kernel: a launch that fails or a kernel that faults becomes a verdict that says
// what CUDA reported, which grid and block were launched, and what usually causes it, instead of ending the
// program on the first shape.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/guarded_matrix.hpp"
#include "step/step_api.cuh"
#include "verify/verify.hpp"

namespace workshop {

struct LaunchOutcome {
    LaunchInfo info;
    cudaError_t error = cudaSuccess;
    bool at_launch = false;  // the launch itself was refused (else the kernel failed while running)
    const char* file = "";   // where the step checked the launch, when it did
    int line = 0;
    bool reset_the_device = false;  // the launch called cudaDeviceReset: nothing it launched is left
    bool ok() const { return error == cudaSuccess && !reset_the_device; }
};

// Calls `launch` (which calls the step's *_on_device) and waits for the kernel. After a fault the CUDA
// context is unusable: the caller must not touch the device again (the battery runs each shape in a process
// of its own for this reason). Nor after a launch that reset the device: its buffers are gone.
LaunchOutcome launch_and_wait(const std::function<LaunchInfo()>& launch);

// Marks `verdict` failed with what the outcome says, and a hint at the usual cause.
void report_launch_failure(const LaunchOutcome& outcome, Verdict& verdict);

// A launch function may keep device memory from one call to the next (step 5's matmul keeps one buffer for the
// whole program and grows it), but one that allocates on every call and frees nothing runs a long program out of
// memory, and no answer shows it. After a checked run, two more calls are made: if each of them leaves more held
// than before it, of device memory, pinned host memory, streams, events, texture objects, surface objects, graphs
// or executable graphs (allocations.hpp, cuda_objects.hpp), `verdict` gets the leak, naming `function` (a launch
// that takes something once, late, and keeps it passes). A failure of those calls is reported as any other.
void check_calls_leave_nothing_behind(const std::function<LaunchInfo()>& launch, const char* function,
                                      Verdict& verdict);

// The same for a buffer kept from call to call and replaced by a larger one when a larger problem comes. One that
// forgets to free the old buffer leaks once per new largest size, never at the same size twice, so the check
// above passes it. After that check, calls at two sizes, each larger than the one before (`larger`, in that
// order): if each leaves one more device allocation held, `verdict` gets the leak (device memory only: nothing
// else grows with the size). A launch that fails there is reported with its size.
struct LaunchAtSize {
    std::string label;  // "203x179"
    std::function<LaunchInfo()> launch;
};
void check_larger_calls_leave_no_memory(const std::vector<LaunchAtSize>& larger, const char* function,
                                        Verdict& verdict);

// The verdict on a launch's output in `out`. Where `right` holds the verdict of an earlier output of the same problem,
// judged right and kept in `host`, and `out` has the same bits, it is that verdict, without reading the output whole
// or judging it again; otherwise the output is read into `host` and judged by `verify`.
Verdict judge_the_output(const GuardedMatrix& out, std::vector<float>& host, const std::optional<Verdict>& right,
                         const std::function<Verdict(const float*)>& verify);

// The two further calls at the checked size write the same output as the checked run, each poisoned first
// (check_the_calls_after_a_checked_run): the last of them must be right too. Its output (in `out`) is compared
// with the checked run's (`first`), and only if the bits differ verified again (`verify`): a kernel that adds in
// no fixed order (atomicAdd) may round otherwise and be right.
// Wrong there is a kernel that keeps something from one launch to the next (a counter in device memory never set
// back), or races and won the first time: `verdict` gets that answer, named as the third launch's.
void check_the_last_further_call(const GuardedMatrix& out, const std::vector<float>& first,
                                 const std::function<Verdict(const float*)>& verify, Verdict& verdict);

// A side of the growth check's `call`-th larger problem (1 or 2): at least 128 more than the one before, so that a
// buffer rounded up to whole tiles of 128 grows too, and not a multiple of 4, so that a step that copies its
// inputs to reach a float4 fast path (step 5's matmul) needs the copies, and the buffer for them, at both.
int side_for_the_growth_check(int side, int call);

// Whether a copy made since the count was `copies_before` (copies_in_the_wrong_direction()) named the wrong
// direction; if one did, `verdict` names the first, as made by `function` (Verdict::set_misuse: before wrong
// elements, after a failure, writes outside the output, a changed input or a leak).
bool report_copies_in_the_wrong_direction(int copies_before, const char* function, Verdict& verdict);

// Step 1's checked round trip: `round_trip` (a call of *_from_host) once, then `verify` of its output, then the
// same check as above for pinned host memory (cudaMallocHost, cudaHostAlloc) and the CUDA objects. A round trip
// has no reason to keep any, but one that stages the matrices in pinned buffers for the faster copies may forget
// cudaFreeHost, and one that times its copies with events may forget cudaEventDestroy. memcheck's leak check would
// see the pinned memory only, as device memory and only where compute-sanitizer runs; this names them at every
// shape. Only when the checked trip left some are two more trips made (and only for up to 1 GiB of pinned memory
// left: past that the small shapes have already shown a trip that leaks), and if each leaves more, the verdict
// gets the leak, naming `function`. The trip's device memory is left to memcheck. Host memory that the trip
// registered (cudaHostRegister) and did not unregister fails at once: it can only be the caller's buffers or the
// function's own, and neither may stay registered. A trip that calls cudaDeviceReset fails before anything else:
// it destroyed the caller's buffers with its own (allocations.hpp).
Verdict check_round_trip(const std::function<void()>& round_trip, const std::function<Verdict()>& verify,
                         const char* function);

// A wrong answer (`first`, read from `out`) launched once more on the same inputs, `out` poisoned again, and the
// two compared (Verdict::compare_second_launch). A second launch that fails becomes the verdict: the device may be
// unusable after it, and a kernel that fails only the second time keeps something from the first.
void compare_with_a_second_launch(const std::function<LaunchInfo()>& launch, GuardedMatrix& out,
                                  const std::vector<float>& first, Verdict& verdict);

// What follows the checked run at its size, the same for every track: a wrong answer launched once more
// (compare_with_a_second_launch); a right one called twice more on a poisoned `out`, for leaks
// (check_calls_leave_nothing_behind, naming `function`), and the last of those calls verified
// (check_the_last_further_call). `first` is the checked run's output, `verify` how any output of `out` is judged.
void check_the_calls_after_a_checked_run(const std::function<LaunchInfo()>& launch, GuardedMatrix& out,
                                         const std::vector<float>& first,
                                         const std::function<Verdict(const float*)>& verify, const char* function,
                                         Verdict& verdict);

// launch_and_wait, keeping what was launched in `info`; on a failure, reports it in `verdict` and returns false
// (the output is then not worth checking).
bool launch_and_record(const std::function<LaunchInfo()>& launch, LaunchInfo& info, Verdict& verdict);

// Marks one block of `launch` on a wrong output's element states, in output elements (ElementStates::block_rows and
// block_cols), for the map's boundaries. A launch says its threads, not the elements each block covers, so this takes
// the first tiling that accounts for every block of the grid: a square tile as wide as the block (a 32 x 8 block
// moving a 32 x 32 tile), the block's own shape either way round, or, for a block of one row of threads, a square
// tile of a power of two. Where none fits (a grid rounded down, or one that loops), a block of two dimensions keeps
// the square and one of one dimension gets no boundaries.
void mark_launch_blocks(ElementStates& states, const LaunchInfo& launch);

}  // namespace workshop
