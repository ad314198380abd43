// Streams made with the cudaStreamNonBlocking flag, counted as they are made. The timing's events are on the
// default stream, and every step launches there; a kernel on a non-blocking stream runs beside the events
// instead, unseen, and would be timed at a few microseconds whatever it does. The link step sends every call of
// cudaStreamCreateWithFlags and cudaStreamCreateWithPriority through the counter first (the linker's --wrap, set
// in CMakeLists.txt, as for allocations.hpp), so a step file's are counted with nothing to change in it.
#pragma once

namespace workshop {

int non_blocking_streams_made();

}  // namespace workshop
