#include "checked_launch.hpp"

#include <fmt/format.h>

#include <string>

#include "source_path.hpp"

namespace workshop {

LaunchOutcome launch_and_wait(const std::function<LaunchInfo()>& launch) {
    LaunchOutcome outcome;
    {
        const LaunchFailureCapture capture;
        outcome.info = launch();
        outcome.error = capture.error();
        outcome.file = capture.file();
        outcome.line = capture.line();
    }
    // A step that does not check its own launch: the error is still pending here.
    if (outcome.error == cudaSuccess) outcome.error = cudaGetLastError();
    outcome.at_launch = outcome.error != cudaSuccess;
    if (outcome.error == cudaSuccess) outcome.error = cudaDeviceSynchronize();
    return outcome;
}

namespace {

std::string dims(const dim3& d) { return fmt::format("({}, {}, {})", d.x, d.y, d.z); }

std::string hint_for(const LaunchOutcome& o) {
    const dim3 g = o.info.grid, b = o.info.block;
    const bool known = o.info.kernel != nullptr;
    const uint64_t threads = uint64_t{b.x} * b.y * b.z;
    switch (o.error) {
        case cudaErrorInvalidConfiguration:
            if (known && (g.x == 0 || g.y == 0 || g.z == 0))
                return "A grid dimension of 0 means a block count was rounded down (cols / 32 is 0 when cols < 32): "
                       "round it up, as (cols + 31) / 32 does";
            if (known && threads > 1024)
                return fmt::format("A block of {} threads: at most 1024 are allowed", threads);
            if (known && (g.y > 65535 || g.z > 65535))
                return "A grid may have at most 65535 blocks along y and z: put the long side on x";
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
        case cudaErrorAssert:
            return "A device-side assert() failed: the message above names it";
        default:
            return "make sanitize runs the kernel under compute-sanitizer, which names the line at fault";
    }
}

}  // namespace

void report_launch_failure(const LaunchOutcome& o, Verdict& verdict) {
    std::string what = fmt::format("{}: {} ({})", o.at_launch ? "the launch failed" : "the kernel failed while running",
                                   cudaGetErrorName(o.error), cudaGetErrorString(o.error));
    if (o.info.kernel) what += fmt::format(", grid {} x block {}", dims(o.info.grid), dims(o.info.block));
    if (o.line > 0) what += fmt::format(", reported at {}:{}", short_source_path(o.file), o.line);
    verdict.set_failure(what, hint_for(o));
}

}  // namespace workshop
