#include <algorithm>

#include "measure/timing.hpp"

namespace workshop {

Timing summarise(std::vector<double> ms) {
    Timing t;
    t.ms = std::move(ms);
    if (t.ms.empty()) return t;
    std::vector<double> sorted = t.ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    t.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    t.min_ms = sorted.front();
    t.max_ms = sorted.back();
    return t;
}

}  // namespace workshop
