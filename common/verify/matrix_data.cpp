#include "verify/matrix_data.hpp"

#include <algorithm>
#include <cstring>

namespace workshop {

float random_value(uint64_t seed, uint64_t i) {
    // splitmix64 of (seed, index): cheap, well mixed, and portable (std distributions are not).
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    // 24 random bits give every representable step of [-1, 1) at float precision.
    return static_cast<float>(static_cast<int64_t>(z >> 40) - (int64_t{1} << 23)) / static_cast<float>(1 << 23);
}

void fill_random(float* data, size_t count, uint64_t seed) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) data[i] = random_value(seed, static_cast<uint64_t>(i));
}

namespace {
uint32_t bits_of(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}
}  // namespace

bool is_poison(float value) { return bits_of(value) == kPoisonBits; }
bool is_shared_poison(float value) { return bits_of(value) == kSharedPoisonBits; }
bool is_fresh_poison(float value) { return bits_of(value) >> 16 == kFreshPoisonBits >> 16; }

void fill_poison(float* data, size_t count) {
    constexpr int64_t kChunk = int64_t{1} << 20;
    const auto n = static_cast<int64_t>(count);
#pragma omp parallel for schedule(static)
    for (int64_t start = 0; start < n; start += kChunk)
        std::memset(data + start, kPoisonByte, static_cast<size_t>(std::min(kChunk, n - start)) * sizeof(float));
}

}  // namespace workshop
