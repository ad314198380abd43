#include "ledger/ledger.hpp"

namespace workshop {

// The same handle made again without a free in between (the runtime reused it) replaces the old entry.
void Ledger::add(uintptr_t key, size_t bytes) {
    if (key == 0) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += static_cast<int64_t>(bytes) - static_cast<int64_t>(sizes_[key]);
    sizes_[key] = bytes;
}

void Ledger::remove(uintptr_t key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (const auto found = sizes_.find(key); found != sizes_.end()) {
        bytes_ -= static_cast<int64_t>(found->second);
        sizes_.erase(found);
    }
}

Allocations Ledger::held() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return {static_cast<int64_t>(sizes_.size()), bytes_};
}

std::vector<std::pair<uintptr_t, size_t>> Ledger::entries() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return {sizes_.begin(), sizes_.end()};
}

void Ledger::forget() {
    const std::lock_guard<std::mutex> lock(mutex_);
    sizes_.clear();
    bytes_ = 0;
}

}  // namespace workshop
