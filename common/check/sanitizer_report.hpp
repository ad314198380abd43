// Reading compute-sanitizer's reports. The verdict names each problem by its source line, in words a student
// can act on: "race: step3/transpose.cu:41 writes and step3/transpose.cu:43 reads the same shared memory with
// no barrier between".
#pragma once

#include <string>
#include <vector>

namespace workshop {

struct SanitizerFinding {
    std::string tool;                          // memcheck, racecheck, synccheck
    std::string headline;                      // the report's first line, as the tool wrote it
    std::string access, location;              // "write", "step3/transpose.cu:44" (either may be empty)
    std::string other_access, other_location;  // racecheck: the second access of the pair
    int size_bytes = 0;                        // memcheck: the size of the bad access
    std::string address;              // memcheck: "4 bytes after the nearest allocation ...", "misaligned", ...
    std::string api_error, api_call;  // a CUDA call that failed ("cudaErrorInvalidValue", "cudaLaunchKernel")
    bool divergent_barrier = false;   // synccheck: a __syncthreads() that only some threads of a warp reached
    int leaked_allocations = 0;       // memcheck --leak-check full: memory never freed, all of it in one finding
    long long leaked_bytes = 0;       //   (the reports name no source line, only addresses)
    int pinned_allocations = 0;       // of those, the pinned host memory the program said it still held
    long long pinned_bytes = 0;       //   (kPinnedHostHeld),
    int registered_ranges = 0;        // and the host memory it still had registered (kHostRegistrationsHeld);
    long long registered_bytes = 0;   //   the rest is device memory

    // A failed CUDA call, not a bad access: the battery reports the same failure shape by shape.
    bool is_api_error() const { return !api_error.empty(); }

    // One phrase for the verdict.
    std::string sentence() const;
};

// memcheck's leak check reports pinned host memory (cudaMallocHost, cudaHostAlloc) never freed, and host memory
// never unregistered (cudaHostRegister), as it reports device memory, with nothing to tell them apart. So a
// program checked under it says last, after these markers, how many of each it still holds and their bytes (its
// own counts, common/ledger/allocations.hpp), and the leak's sentence names each kind with its own remedy.
constexpr const char* kPinnedHostHeld = "@@ pinned host memory held:";
constexpr const char* kHostRegistrationsHeld = "@@ host memory still registered:";

// The findings in the text a tool printed (each reported place once).
std::vector<SanitizerFinding> parse_sanitizer_output(const std::string& tool, const std::string& text);

}  // namespace workshop
