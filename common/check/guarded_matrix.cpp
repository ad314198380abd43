#include "check/guarded_matrix.hpp"

#include <algorithm>
#include <cstring>

#include "ledger/cuda_objects.hpp"
#include "measure/device_kernels.cuh"
#include "verify/matrix_data.hpp"

namespace workshop {

namespace {

// Every byte 0x5A: about 1.5e16 as a float, a value no kernel of the workshop computes from inputs in [-1, 1),
// and neither the poison nor zero.
constexpr int kCanaryByte = 0x5A;

int64_t count_changed_canaries(const std::vector<uint32_t>& words) {
    uint32_t canary;
    std::memset(&canary, kCanaryByte, sizeof canary);
    return std::count_if(words.begin(), words.end(), [&](uint32_t w) { return w != canary; });
}

}  // namespace

MatrixLayout CheckSetup::layout_of(int matrix_index) const {
    // Different offsets per matrix, all misaligned: a kernel that tests only one pointer's alignment fails too.
    return {misalign == 0 ? 0 : (misalign - 1 + matrix_index) % 3 + 1, guards};
}

size_t GuardedMatrix::guard_words(size_t count) {
    // A multiple of 64 floats keeps the matrix on a 256-byte boundary before the misalignment is added.
    const size_t words = std::clamp<size_t>(count, 4096, size_t{1} << 20);
    return (words + 63) / 64 * 64;
}

GuardedMatrix::GuardedMatrix(size_t count, MatrixLayout layout)
    : before_((layout.guards ? guard_words(count) : 0) + layout.misalign_floats),
      count_(count),
      after_(layout.guards ? guard_words(count) : 0),
      storage_(before_ + count_ + after_) {
    CUDA_CHECK(cudaMemset(storage_.get(), kCanaryByte, storage_.bytes()));
}

void GuardedMatrix::upload(const float* host) {
    CUDA_CHECK(cudaMemcpy(get(), host, count_ * sizeof(float), cudaMemcpyHostToDevice));
}

void GuardedMatrix::download(float* host) const {
    CUDA_CHECK(cudaMemcpy(host, get(), count_ * sizeof(float), cudaMemcpyDeviceToHost));
}

// A kernel launched on a stream made with cudaStreamNonBlocking does not wait for the poison, which is on the
// default stream: it may run before the poison or after it, and pass or fail by luck. So where the program made
// such a stream, the poison waits behind a hold of 20 ms, longer than any launch of the battery takes to be queued
// and run: such a kernel then runs first, and its output is poisoned after it, on every launch.
// The shared memory is poisoned too, and first: CUDA loads a kernel when it is first used, and the load of the
// poison's kernel waited for the device, the hold included, which let the kernel on the other stream run last.
// Only where the guards are on: without them the shapes run under compute-sanitizer, whose racecheck would
// follow every store of that poison, and the same shapes have run with it.
void GuardedMatrix::poison() {
    if (after_ > 0) fill_shared_memory(kSharedPoisonBits);  // guards on
    if (non_blocking_streams_made() > 0) hold_the_default_stream(20000);
    poison_device(get(), count_);
}

OutsideWrites GuardedMatrix::outside_writes() const {
    std::vector<uint32_t> before(before_), after(after_);
    CUDA_CHECK(cudaMemcpy(before.data(), storage_.get(), before_ * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(after.data(), get() + count_, after_ * sizeof(float), cudaMemcpyDeviceToHost));
    return {count_changed_canaries(before), count_changed_canaries(after)};
}

int64_t GuardedMatrix::words_differing_from(const float* host) const {
    // In pieces through one small buffer: a whole copy of a large matrix would be hundreds of megabytes of fresh
    // pages, read once.
    constexpr size_t kPieceWords = size_t{1} << 20;
    std::vector<float> piece(std::min(count_, kPieceWords));
    int64_t differing = 0;
    for (size_t start = 0; start < count_; start += kPieceWords) {
        const auto n = static_cast<int64_t>(std::min(kPieceWords, count_ - start));
        CUDA_CHECK(cudaMemcpy(piece.data(), get() + start, n * sizeof(float), cudaMemcpyDeviceToHost));
        const float* expected = host + start;
#pragma omp parallel for reduction(+ : differing)
        for (int64_t i = 0; i < n; ++i) differing += std::memcmp(&piece[i], &expected[i], sizeof(float)) != 0;
    }
    return differing;
}

int64_t GuardedMatrix::words_changed_since_upload(const float* host) const {
    const OutsideWrites around = outside_writes();
    return words_differing_from(host) + around.before + around.after;
}

}  // namespace workshop
