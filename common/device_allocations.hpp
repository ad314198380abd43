// Device memory the program holds, counted at every allocation and free. The link step sends every call of
// cudaMalloc, cudaMallocManaged, cudaMallocPitch and cudaMallocAsync, and of cudaFree and cudaFreeAsync, through
// the counter first (the linker's --wrap, set in CMakeLists.txt): the student's calls as much as the harness's,
// with nothing to change in a step file. The checks compare the count before and after further calls of a
// launch function, to tell a buffer kept for the whole program from one allocated on every call and never freed.
#pragma once

#include <cstdint>

namespace workshop {

struct DeviceAllocations {
    int64_t count = 0;  // allocations not freed yet
    int64_t bytes = 0;  // their sizes, as asked for
};

DeviceAllocations device_allocations_held();

}  // namespace workshop
