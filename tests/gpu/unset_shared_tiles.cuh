// Kernels for the test of the shared-memory poison (harness_test.cpp): one leaves a value in the shared memory
// of every SM, as an earlier kernel of a program would; the other reads a tile of it that no thread wrote.
#pragma once

#include <cstdint>

#include "step_api.cuh"

namespace workshop {

void leave_in_shared_memory(uint32_t value);

// Each of `blocks` blocks of 32 x 32 threads copies its 32 x 32 shared tile, never written, to out[1024 * block...].
LaunchInfo copy_unset_shared_tiles(uint32_t* out, int blocks);

}  // namespace workshop
