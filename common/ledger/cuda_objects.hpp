// The CUDA objects the program holds that are not memory: streams, events, texture objects, surface objects, CUDA
// graphs and executable graphs, counted as they are made and destroyed. A launch function that makes one on every
// call and never destroys it leaks it as surely as memory (each takes driver resources, and a long program runs
// out), and no answer shows it; the checks compare these counts before and after further calls
// (checked_launch.hpp). The link step sends every call that makes or destroys one through the counters first (the
// linker's --wrap, set in CMakeLists.txt, as for allocations.hpp), so a step file's are counted with nothing to
// change in it.
//
// Streams made with the cudaStreamNonBlocking flag are also counted apart, for good. The harness's work (the
// timing's events, the NaN poured into the output before each checked launch) is on the default stream, where
// every step launches; a kernel on a non-blocking stream runs beside it instead, unseen, and would be timed at a
// few microseconds whatever it does.
#pragma once

#include "ledger/allocations.hpp"

namespace workshop {

// Each as an Allocations with no bytes: how many are held.
Allocations streams_held();
Allocations events_held();
Allocations texture_objects_held();
Allocations surface_objects_held();
Allocations graphs_held();
Allocations executable_graphs_held();

int non_blocking_streams_made();

// cudaDeviceReset destroyed every object of the program: the counts start again from zero.
void forget_cuda_objects();

}  // namespace workshop
