#include "measure/metrics.hpp"

namespace workshop {

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
    switch (cc_major) {
        case 6: return cc_minor == 0 ? 64 : 128;  // P100 has 64, the other Pascals 128
        case 7: return 64;                        // Volta, Turing
        case 8: return cc_minor == 0 ? 64 : 128;  // A100 has 64; GA10x, Ada doubled FP32
        default: return 128;                      // Hopper, Blackwell
    }
}

}  // namespace workshop
