#include "ledger/copy_directions.hpp"

#include "ledger/allocations.hpp"
#include "ledger/unseen_by_the_program.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace workshop {

namespace {

enum class Side { kHost, kDevice, kEither };

struct Memory {
    Side side;
    const char* name;
};

// The program's last error and any capture it has under way are kept: a copy captured into a graph is looked at
// too.
Memory memory_at(const void* pointer) {
    const ProgramsLastErrorKept last_error_kept;  // declared first: it ends after the capture mode is restored
    const ProgramsCaptureKept capture_kept;
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) return {Side::kEither, "unknown memory"};
    switch (attributes.type) {
        case cudaMemoryTypeDevice: return {Side::kDevice, "device memory"};
        case cudaMemoryTypeManaged: return {Side::kEither, "managed memory"};
        case cudaMemoryTypeHost: return {Side::kHost, "pinned host memory"};
        default: return {Side::kHost, "pageable host memory"};
    }
}

bool fits(Side wanted, const Memory& memory) { return memory.side == Side::kEither || memory.side == wanted; }

std::mutex mutex;
// One line for each copy in the wrong direction, in order. They are counted only while a check runs, and a check
// makes a few calls at each shape, so the list stays short.
std::vector<std::string> wrong_directions;
std::string made_where;  // CopiesMadeElsewhere's, or empty

void compare_direction(const char* call, void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
    const bool from_host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost;
    const bool to_host = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost;
    const bool named = from_host || to_host || kind == cudaMemcpyDeviceToDevice;
    if (!a_check_runs() || !named || bytes == 0) return;
    const Memory source = memory_at(from), destination = memory_at(to);
    const bool right = fits(from_host ? Side::kHost : Side::kDevice, source) &&
                       fits(to_host ? Side::kHost : Side::kDevice, destination);
    if (right) return;
    const char* const kinds[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                 "cudaMemcpyDeviceToDevice"};
    const std::lock_guard<std::mutex> lock(mutex);
    wrong_directions.push_back(fmt::format("a {} of {} bytes named {}, from {} to {}{}", call, bytes, kinds[kind],
                                           source.name, destination.name, made_where.empty() ? "" : ", " + made_where));
}

}  // namespace

int copies_in_the_wrong_direction() {
    const std::lock_guard<std::mutex> lock(mutex);
    return static_cast<int>(wrong_directions.size());
}

std::string the_copy_in_the_wrong_direction(int number) {
    const std::lock_guard<std::mutex> lock(mutex);
    return number >= 0 && number < static_cast<int>(wrong_directions.size()) ? wrong_directions[number] : "";
}

CopiesMadeElsewhere::CopiesMadeElsewhere(std::string where) {
    const std::lock_guard<std::mutex> lock(mutex);
    made_where = std::move(where);
}

CopiesMadeElsewhere::~CopiesMadeElsewhere() {
    const std::lock_guard<std::mutex> lock(mutex);
    made_where.clear();
}

}  // namespace workshop

// The wrappers the linker puts in place of the CUDA runtime's functions; __real_X is the runtime's own X.
extern "C" {
cudaError_t __real_cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind kind);
cudaError_t __real_cudaMemcpyAsync(void* to, const void* from, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t __real_cudaMemcpy2D(void* to, size_t to_pitch, const void* from, size_t from_pitch, size_t width,
                                size_t height, cudaMemcpyKind kind);
cudaError_t __real_cudaMemcpy2DAsync(void* to, size_t to_pitch, const void* from, size_t from_pitch, size_t width,
                                     size_t height, cudaMemcpyKind kind, cudaStream_t stream);

cudaError_t __wrap_cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
    workshop::compare_direction("cudaMemcpy", to, from, bytes, kind);
    return __real_cudaMemcpy(to, from, bytes, kind);
}
cudaError_t __wrap_cudaMemcpyAsync(void* to, const void* from, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
    workshop::compare_direction("cudaMemcpyAsync", to, from, bytes, kind);
    return __real_cudaMemcpyAsync(to, from, bytes, kind, stream);
}
// A 2D copy (rows of `width` bytes, each `pitch` apart) is the call for a matrix copied into a padded one.
cudaError_t __wrap_cudaMemcpy2D(void* to, size_t to_pitch, const void* from, size_t from_pitch, size_t width,
                                size_t height, cudaMemcpyKind kind) {
    workshop::compare_direction("cudaMemcpy2D", to, from, width * height, kind);
    return __real_cudaMemcpy2D(to, to_pitch, from, from_pitch, width, height, kind);
}
cudaError_t __wrap_cudaMemcpy2DAsync(void* to, size_t to_pitch, const void* from, size_t from_pitch, size_t width,
                                     size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    workshop::compare_direction("cudaMemcpy2DAsync", to, from, width * height, kind);
    return __real_cudaMemcpy2DAsync(to, to_pitch, from, from_pitch, width, height, kind, stream);
}
}
