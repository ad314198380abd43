// The kernel of the test of the shared-memory poison (harness_test.cpp): it reads a tile of shared memory that no
// thread wrote, as a kernel that leaves slots of its tile unset does.
#pragma once

#include <cstdint>

#include "step/step_api.cuh"

namespace workshop {

// Each of `blocks` blocks of 32 x 32 threads copies its 32 x 32 shared tile, never written, to out[1024 * block...].
LaunchInfo copy_unset_shared_tiles(uint32_t* out, int blocks);

}  // namespace workshop
