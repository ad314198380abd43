// The memory the program holds, counted at every allocation and free, in three ledgers. Device memory: every call
// of cudaMalloc, cudaMallocManaged, cudaMallocPitch, cudaMalloc3D, cudaMallocAsync and cudaMallocFromPoolAsync,
// less cudaFree and cudaFreeAsync, and the CUDA arrays of cudaMallocArray and cudaMalloc3DArray, less
// cudaFreeArray. Pinned host memory: cudaMallocHost and cudaHostAlloc, less cudaFreeHost. Host
// memory that the program's own allocator gave and cudaHostRegister pinned in place, less cudaHostUnregister. The
// link step sends these calls through the ledgers first (the linker's --wrap, set in CMakeLists.txt): the
// student's calls as much as the harness's, with nothing to change in a step file. The checks compare the counts
// before and after further calls of a step's function, to tell memory kept for the whole program from memory
// taken on every call and never given back.
#pragma once

#include <cstdint>
#include <vector>

namespace workshop {

struct Allocations {
    int64_t count = 0;  // allocations not freed yet
    int64_t bytes = 0;  // their sizes, as asked for
};

Allocations device_allocations_held();
Allocations pinned_host_allocations_held();
Allocations host_registrations_held();

// The program's calls of cudaDeviceReset so far. A reset destroys the device's context: every allocation, stream
// and pinned buffer of the program, the caller's as much as the function's own. The ledgers are emptied with it
// (cuda_objects.hpp's counts too), and the checks compare this count before and after a step's function to tell
// that it reset the device.
int device_resets();

// While one of these is alive (each shape of make check, the checked runs of make run, step 1's round trips), the
// device memory and the pinned host memory the program allocates start as kFreshPoisonBits in every word, a NaN of
// its own (matrix_data.hpp). cudaMalloc promises nothing about what new memory holds, and it often holds zeros: a
// kernel that reads memory nothing wrote (the padding of a copy, left unset) would be right by luck, and wrong the
// day the memory is reused. Its own NaN, not the output's poison: a transpose moves values bit for bit, so an
// element that holds it may come from an input that was never copied in as much as from an output the kernel never
// stored, and the verdict must not name only the second. Device memory that got it during an earlier check and is
// still held gets it again when the next check starts: a buffer kept from call to call is as unwritten at a new
// size as it was at the first. The timed runs allocate without it, and CUDA arrays (written only by copies) are
// left as they come.
class FreshMemoryPoisoned {
public:
    FreshMemoryPoisoned();
    ~FreshMemoryPoisoned();
    FreshMemoryPoisoned(const FreshMemoryPoisoned&) = delete;
    FreshMemoryPoisoned& operator=(const FreshMemoryPoisoned&) = delete;
};

// Whether a FreshMemoryPoisoned is alive, that is, whether a check runs (copy_directions.hpp looks at copies only
// then, so that the timed runs pay nothing for it).
bool a_check_runs();

// Host ranges a check's calls registered with cudaHostRegister and left registered are unregistered when one of
// these ends, after the verdict has counted them. The caller's matrices are freed after each shape, and their pages
// handed out again for the next shape's: a registration left on them makes that shape's cudaHostRegister fail, and
// in make check's shared process a later shape passed, or read NaN (its copy back most likely went to the old
// pages), where alone it fails with the leak.
class HostRegistrationsUndone {
public:
    HostRegistrationsUndone();
    ~HostRegistrationsUndone();
    HostRegistrationsUndone(const HostRegistrationsUndone&) = delete;
    HostRegistrationsUndone& operator=(const HostRegistrationsUndone&) = delete;

private:
    std::vector<uintptr_t> registered_before_;
};

}  // namespace workshop
