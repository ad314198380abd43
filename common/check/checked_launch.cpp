#include "check/checked_launch.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ledger/allocations.hpp"
#include "ledger/copy_directions.hpp"
#include "ledger/cuda_objects.hpp"
#include "base/source_path.hpp"

namespace workshop {

LaunchOutcome launch_and_wait(const std::function<LaunchInfo()>& launch) {
    LaunchOutcome outcome;
    const int resets_before = device_resets();
    {
        const LaunchFailureCapture capture;
        outcome.info = launch();
        outcome.error = capture.error();
        outcome.file = capture.file();
        outcome.line = capture.line();
    }
    outcome.reset_the_device = device_resets() != resets_before;
    if (outcome.reset_the_device) return outcome;
    // A step that does not check its own launch: the error is still pending here.
    if (outcome.error == cudaSuccess) outcome.error = cudaGetLastError();
    outcome.at_launch = outcome.error != cudaSuccess;
    if (outcome.error == cudaSuccess) outcome.error = cudaDeviceSynchronize();
    return outcome;
}

namespace {

std::string dims(const dim3& d) { return fmt::format("({}, {}, {})", d.x, d.y, d.z); }

// A refused launch is nearly always its configuration; which error code says so varies between CUDA versions
// (cudaErrorInvalidConfiguration, cudaErrorInvalidValue), so the grid and block are read first.
std::string configuration_hint(const LaunchInfo& info) {
    const dim3 g = info.grid, b = info.block;
    const uint64_t threads = uint64_t{b.x} * b.y * b.z;
    if (g.x == 0 || g.y == 0 || g.z == 0)
        return "A grid dimension of 0 means a block count was rounded down (cols / 32 is 0 when cols < 32): "
               "round it up, as (cols + 31) / 32 does";
    if (threads > 1024) return fmt::format("A block of {} threads: at most 1024 are allowed", threads);
    if (b.z > 64) return "A block may be at most 64 threads deep (z)";
    if (g.y > 65535 || g.z > 65535) return "A grid may have at most 65535 blocks along y and z: put the long side on x";
    return {};
}

std::string hint_for(const LaunchOutcome& o) {
    if (o.at_launch && o.info.kernel) {
        if (std::string hint = configuration_hint(o.info); !hint.empty()) return hint;
    }
    switch (o.error) {
        case cudaErrorInvalidConfiguration:
            return "Check the grid and block sizes: at most 1024 threads per block, 65535 blocks along y and z";
        case cudaErrorLaunchOutOfResources:
            return "The block needs more registers than the SM has for this many threads: launch fewer threads per "
                   "block, or cap the registers with __launch_bounds__";
        case cudaErrorIllegalAddress:
            return "An access outside the matrices, usually a missing or wrong bounds test (make sanitize names "
                   "the line)";
        case cudaErrorMisalignedAddress:
            return "A vector access (float2, float4) at an address that is not a multiple of its size: the "
                   "pointers are not 16-byte aligned here, so test their alignment and fall back to scalar accesses";
        case cudaErrorAssert: return "A device-side assert() failed: the message above names it";
        case cudaErrorHostMemoryAlreadyRegistered:
        case cudaErrorHostMemoryNotRegistered:
            return "Not the launch's own error: an earlier cudaHostRegister or cudaHostUnregister failed unchecked, "
                   "and CUDA kept its error for the next check, the launch's. Memory registered already cannot be "
                   "registered again: unregister what you register before the function returns, and wrap those "
                   "calls in CUDA_CHECK too";
        default: return "make sanitize runs the kernel under compute-sanitizer, which names the line at fault";
    }
}

// A reset in the step's code, said the same way for every function.
void report_device_reset(const std::string& who, Verdict& verdict) {
    verdict.set_failure(fmt::format("{} called cudaDeviceReset, which destroys every buffer and stream of the "
                                    "program, the caller's as well as its own",
                                    who),
                        "Free only what the function allocated (cudaFree) and leave the reset out: the caller may "
                        "still need the GPU. A program that wants a reset makes it once, at the end of main");
}

}  // namespace

void report_launch_failure(const LaunchOutcome& o, Verdict& verdict) {
    if (o.reset_the_device) return report_device_reset("the launch", verdict);
    std::string what = fmt::format("{}: {} ({})", o.at_launch ? "the launch failed" : "the kernel failed while running",
                                   cudaGetErrorName(o.error), cudaGetErrorString(o.error));
    if (o.info.kernel) what += fmt::format(", grid {} x block {}", dims(o.info.grid), dims(o.info.block));
    if (o.line > 0) what += fmt::format(", reported at {}:{}", short_source_path(o.file), o.line);
    verdict.set_failure(what, hint_for(o));
}

namespace {

constexpr int kMoreCalls = 2;

// One thing a call may take and not give back: memory (said with its bytes) or a CUDA object (said by count).
struct Keepable {
    Allocations (*held)();
    const char* memory;       // "device memory"; nullptr for an object
    const char* one_object;   // "an event": for an object
    const char* the_objects;  // "events"
    const char* hint;
};

const Keepable kDeviceMemory{device_allocations_held, "device memory", nullptr, nullptr,
                             "Free what the launch allocates before it returns (cudaFree waits for the kernel to "
                             "finish; a CUDA array needs cudaFreeArray), or allocate it once and keep it for the next "
                             "call, in a static pointer as step 5's matmul solution keeps its buffer"};
const Keepable kPinnedHostMemory{pinned_host_allocations_held, "pinned host memory", nullptr, nullptr,
                                 "Give each cudaMallocHost or cudaHostAlloc buffer back with cudaFreeHost before the "
                                 "function returns: pinned memory is taken out of the operating system's pool until "
                                 "then, and a program that takes more on every call runs the machine out of it"};
const Keepable kStreams{streams_held, nullptr, "a stream", "streams",
                        "Destroy the stream with cudaStreamDestroy before the function returns (work queued on it "
                        "still finishes), or make none: the steps launch on the default stream, which the checks and "
                        "the timing wait for"};
const Keepable kEvents{events_held, nullptr, "an event", "events",
                       "Destroy each event with cudaEventDestroy before the function returns. Events that time the "
                       "kernel are not needed here: make run times the whole function"};
const Keepable kTextureObjects{texture_objects_held, nullptr, "a texture object", "texture objects",
                               "Destroy the texture object with cudaDestroyTextureObject before the function "
                               "returns, once the kernel that reads it is done: each one left holds a descriptor in "
                               "the driver for the rest of the program"};
const Keepable kSurfaceObjects{surface_objects_held, nullptr, "a surface object", "surface objects",
                               "Destroy the surface object with cudaDestroySurfaceObject before the function "
                               "returns, once the kernel that writes it is done"};
const Keepable kGraphs{graphs_held, nullptr, "a CUDA graph", "CUDA graphs",
                       "Destroy the graph with cudaGraphDestroy once it is instantiated: the executable graph does "
                       "not need it"};
const Keepable kExecutableGraphs{executable_graphs_held, nullptr, "an executable graph", "executable graphs",
                                 "Destroy the executable graph with cudaGraphExecDestroy before the function returns "
                                 "(a launch of it already queued still runs). A graph saves launch time only when it "
                                 "is launched many times: one instantiated for a single launch costs more than it "
                                 "saves"};

// What a launch on the device may keep; a round trip's device memory is memcheck's (make check runs it in step 1).
const std::vector<const Keepable*> kWhatALaunchMayKeep{&kDeviceMemory, &kPinnedHostMemory, &kStreams,
                                                       &kEvents,       &kTextureObjects,   &kSurfaceObjects,
                                                       &kGraphs,       &kExecutableGraphs};
const std::vector<const Keepable*> kWhatARoundTripMayKeep{
    &kPinnedHostMemory, &kStreams, &kEvents, &kTextureObjects, &kSurfaceObjects, &kGraphs, &kExecutableGraphs};

struct Left {
    const Keepable* what;
    Allocations by_the_calls;
};

std::vector<Allocations> held_now(const std::vector<const Keepable*>& kinds) {
    std::vector<Allocations> now;
    for (const Keepable* k : kinds) now.push_back(k->held());
    return now;
}

// Two more calls (`call(0)`, `call(1)`); the first of `kinds` of which each call left more held than before it,
// with what the two left, else nothing. One call that takes what it then keeps is no leak. A call that fails ends
// it with nothing: `call` has reported the failure.
std::optional<Left> left_by_every_call(const std::function<bool(int)>& call,
                                       const std::vector<const Keepable*>& kinds) {
    const std::vector<Allocations> before = held_now(kinds);
    std::vector<Allocations> after = before;
    std::vector<bool> every_call_left_some(kinds.size(), true);
    for (int i = 0; i < kMoreCalls; ++i) {
        if (!call(i)) return std::nullopt;
        const std::vector<Allocations> now = held_now(kinds);
        for (size_t k = 0; k < kinds.size(); ++k) {
            if (now[k].count <= after[k].count) every_call_left_some[k] = false;
        }
        after = now;
    }
    for (size_t k = 0; k < kinds.size(); ++k) {
        if (every_call_left_some[k])
            return Left{kinds[k], {after[k].count - before[k].count, after[k].bytes - before[k].bytes}};
    }
    return std::nullopt;
}

void report_leak(const char* function, const Left& left, Verdict& verdict) {
    const int64_t n = left.by_the_calls.count;
    const Keepable& k = *left.what;
    if (k.memory)
        verdict.set_leak(fmt::format("leak: every call of {} leaves {} allocated: {} more calls left {} allocation{} "
                                     "({} bytes) that nothing freed",
                                     function, k.memory, kMoreCalls, n, n == 1 ? "" : "s", left.by_the_calls.bytes),
                         k.hint);
    else
        verdict.set_leak(fmt::format("leak: every call of {} leaves {} behind: {} more calls left {} {} that nothing "
                                     "destroyed",
                                     function, k.one_object, kMoreCalls, n, k.the_objects),
                         k.hint);
}

}  // namespace

void check_calls_leave_nothing_behind(const std::function<LaunchInfo()>& launch, const char* function,
                                      Verdict& verdict) {
    const auto call = [&](int) {
        LaunchInfo ignored;
        return launch_and_record(launch, ignored, verdict);
    };
    if (const auto left = left_by_every_call(call, kWhatALaunchMayKeep)) report_leak(function, *left, verdict);
}

int side_for_the_growth_check(int side, int call) {
    const int larger = side + 131 * call;
    return larger + (3 - larger % 4);  // 3 more than a multiple of 4: no float4 fast path fits
}

void check_larger_calls_leave_no_memory(const std::vector<LaunchAtSize>& larger, const char* function,
                                        Verdict& verdict) {
    const auto call = [&](int i) {
        Verdict at_this_size;
        LaunchInfo ignored;
        const CopiesMadeElsewhere copies_made_here(
            fmt::format("at {}, a larger size that the leak check calls it with", larger[i].label));
        if (launch_and_record(larger[i].launch, ignored, at_this_size)) return true;
        // Right at this shape, so the usual hint (a bounds test; make sanitize names the line) may point the wrong
        // way.
        verdict.set_failure(fmt::format("at {}, a larger size that the leak check calls {} with: {}", larger[i].label,
                                        function, at_this_size.failure),
                            "Right at this shape, failing at a larger one called after it: either the kernel fails "
                            "at sizes like that one (do the battery's larger shapes fail too?), or the launch keeps "
                            "something from an earlier call that a larger call outgrows (a buffer allocated on the "
                            "first call and never grown). make sanitize makes no such calls");
        return false;
    };
    const auto left = left_by_every_call(call, {&kDeviceMemory});
    if (!left) return;
    const Allocations& by = left->by_the_calls;
    verdict.set_leak(
        fmt::format("leak: every call of {} at a larger size leaves device memory allocated: calls at {} and {} left "
                    "{} allocation{} ({} bytes) that nothing freed",
                    function, larger[0].label, larger[1].label, by.count, by.count == 1 ? "" : "s", by.bytes),
        "A buffer kept from one call to the next and replaced by a larger one needs the old one freed first "
        "(cudaFree, then cudaMalloc), as step 5's matmul solution does in scratch_buffer: otherwise every new "
        "largest size leaves one behind");
}

bool report_copies_in_the_wrong_direction(int copies_before, const char* function, Verdict& verdict) {
    if (copies_in_the_wrong_direction() == copies_before) return false;
    // The first: the checked call's own where it made one, else a later call's (one at a larger size says so).
    const std::string copy = fmt::format("{} made {}: its kind names the wrong direction", function,
                                         the_copy_in_the_wrong_direction(copies_before));
    const std::string hint =
        "The kind says which way the bytes go, and must match the pointers: "
        "cudaMemcpyHostToDevice from host memory to device memory, cudaMemcpyDeviceToHost back, "
        "cudaMemcpyDeviceToDevice between two device buffers (or cudaMemcpyDefault, which works "
        "it out). A wrong one works by luck where no side is pageable host memory, and fails "
        "where one is";
    verdict.set_misuse(copy, hint);
    return true;
}

Verdict check_round_trip(const std::function<void()>& round_trip, const std::function<Verdict()>& verify,
                         const char* function) {
    constexpr int64_t kMostBytesToTakeAgain = int64_t{1} << 30;
    const Allocations registered_before = host_registrations_held();
    const std::vector<Allocations> held_before = held_now(kWhatARoundTripMayKeep);
    const int resets_before = device_resets();
    const int wrong_directions_before = copies_in_the_wrong_direction();
    const HostRegistrationsUndone host_registrations_undone;  // after the verdict below has counted them
    const FreshMemoryPoisoned fresh_memory_poisoned;
    round_trip();
    if (device_resets() != resets_before) {
        Verdict reset;
        report_device_reset("it", reset);  // said after the function's name
        return reset;
    }
    Verdict verdict = verify();
    if (report_copies_in_the_wrong_direction(wrong_directions_before, function, verdict)) return verdict;
    const Allocations registered = host_registrations_held();
    if (verdict.ok && registered.count > registered_before.count) {
        const int64_t ranges = registered.count - registered_before.count;
        const int64_t bytes = registered.bytes - registered_before.bytes;
        verdict.set_leak(fmt::format("leak: {} returns with {} host range{} ({} bytes) still registered with "
                                     "cudaHostRegister",
                                     function, ranges, ranges == 1 ? "" : "s", bytes),
                         "Unregister (cudaHostUnregister) what the function registered before it returns: that "
                         "memory is the caller's, who may free it or use it again, and until then it stays locked "
                         "in RAM, and registering it again fails");
        return verdict;
    }
    if (!verdict.ok) return verdict;
    // Two more trips only where the checked one left something: a trip takes seconds at the large shapes.
    const std::vector<Allocations> held_after = held_now(kWhatARoundTripMayKeep);
    bool left_some = false;
    int64_t bytes_left = 0;  // pinned memory's: objects count no bytes
    for (size_t k = 0; k < held_after.size(); ++k) {
        left_some |= held_after[k].count > held_before[k].count;
        bytes_left += held_after[k].bytes - held_before[k].bytes;
    }
    if (!left_some || bytes_left > kMostBytesToTakeAgain) return verdict;
    const auto call = [&](int) {
        round_trip();
        return true;
    };
    if (const auto left = left_by_every_call(call, kWhatARoundTripMayKeep)) report_leak(function, *left, verdict);
    return verdict;
}

bool launch_and_record(const std::function<LaunchInfo()>& launch, LaunchInfo& info, Verdict& verdict) {
    const LaunchOutcome outcome = launch_and_wait(launch);
    info = outcome.info;
    if (outcome.ok()) return true;
    report_launch_failure(outcome, verdict);
    return false;
}

Verdict judge_the_output(const GuardedMatrix& out, std::vector<float>& host, const std::optional<Verdict>& right,
                         const std::function<Verdict(const float*)>& verify) {
    if (right && host.size() == out.count() && out.words_differing_from(host.data()) == 0) return *right;
    host.resize(out.count());
    out.download(host.data());
    return verify(host.data());
}

void check_the_last_further_call(const GuardedMatrix& out, const std::vector<float>& first,
                                 const std::function<Verdict(const float*)>& verify, Verdict& verdict) {
    static_assert(kMoreCalls == 2, "the launch named below is the third");
    if (!verdict.ok) return;
    const OutsideWrites outside = out.outside_writes();
    if (!outside.any() && out.words_differing_from(first.data()) == 0) return;
    std::vector<float> last(out.count());
    out.download(last.data());
    Verdict later = verify(last.data());
    later.add_guard_report(outside, 0);
    if (later.ok) return;
    later.wrong_on = "right on the first launch, wrong on the third at the same size";
    later.hint =
        "Does the kernel keep something from one launch to the next (a counter in device memory that "
        "nothing sets back to zero), or race, and win the first time by luck?";
    verdict = later;
}

void compare_with_a_second_launch(const std::function<LaunchInfo()>& launch, GuardedMatrix& out,
                                  const std::vector<float>& first, Verdict& verdict) {
    if (!verdict.worth_a_second_launch()) return;
    out.poison();
    LaunchInfo ignored;
    Verdict again;
    if (!launch_and_record(launch, ignored, again)) {
        again.failure = "on a second launch with the same inputs: " + again.failure;
        verdict = again;
        return;
    }
    std::vector<float> second(out.count());
    out.download(second.data());
    verdict.compare_second_launch(first.data(), second.data(), first.size());
}

void check_the_calls_after_a_checked_run(const std::function<LaunchInfo()>& launch, GuardedMatrix& out,
                                         const std::vector<float>& first,
                                         const std::function<Verdict(const float*)>& verify, const char* function,
                                         Verdict& verdict) {
    if (!verdict.ok) {
        compare_with_a_second_launch(launch, out, first, verdict);
        return;
    }
    const auto launch_on_poison = [&] {
        out.poison();
        return launch();
    };
    check_calls_leave_nothing_behind(launch_on_poison, function, verdict);
    check_the_last_further_call(out, first, verify, verdict);
}

void mark_launch_blocks(ElementStates& states, const LaunchInfo& launch) {
    if (!launch.kernel || launch.block.x == 0 || launch.block.y == 0) return;
    const int64_t blocks = int64_t{launch.grid.x} * launch.grid.y * launch.grid.z;
    const auto tiles = [&](int64_t rows, int64_t cols) {
        return ((states.rows + rows - 1) / rows) * ((states.cols + cols - 1) / cols);
    };
    const int64_t x = launch.block.x, y = launch.block.y;
    std::vector<std::pair<int64_t, int64_t>> candidates;
    if (y > 1) candidates = {{x, x}, {y, x}, {x, y}};
    for (int64_t side = 8; y == 1 && side <= 256; side *= 2) candidates.emplace_back(side, side);
    for (const auto& [rows, cols] : candidates)
        if (tiles(rows, cols) == blocks) {
            states.block_rows = rows, states.block_cols = cols;
            return;
        }
    if (y > 1) states.block_rows = states.block_cols = x;
}

}  // namespace workshop
