// A device matrix inside guard zones. The allocation holds canary words before and after the matrix, so a
// kernel that stores past an edge changes a canary instead of landing silently in some other buffer; the
// harness counts the changed canaries after the run. The matrix may also start a few floats past an aligned
// address, as any pointer a caller passes may: a kernel that assumes 16-byte alignment for float4 accesses
// then faults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "step/device_buffer.cuh"
#include "verify/verify.hpp"

namespace workshop {

struct MatrixLayout {
    int misalign_floats = 0;  // 0 to 3: the matrix starts this many floats past a 256-byte boundary
    bool guards = true;       // false: the allocation is the matrix alone (for compute-sanitizer's memcheck)
};

// The layout of all the matrices of one checked run. `misalign` 1 to 3 starts the first matrix that many floats
// past an aligned address and the others at the next offsets in turn; 0 keeps them all aligned.
struct CheckSetup {
    int misalign = 0;
    bool guards = true;
    MatrixLayout layout_of(int matrix_index) const;
};

class GuardedMatrix {
public:
    GuardedMatrix(size_t count, MatrixLayout layout);

    float* get() const { return storage_.get() + before_; }
    size_t count() const { return count_; }

    void upload(const float* host);
    void download(float* host) const;
    // NaN in the matrix (the guards keep their canaries) and, where there are guards, in the shared memory of every
    // SM, for the launch that follows.
    void poison();

    // Canaries changed since construction, before and after the matrix.
    OutsideWrites outside_writes() const;
    // Words that differ from `host` (what was uploaded) plus changed canaries: a check that an input survived.
    int64_t words_changed_since_upload(const float* host) const;
    // Words of the matrix whose bits differ from `host`'s.
    int64_t words_differing_from(const float* host) const;

    // Guard words on each side: enough to catch a store one partial tile past any edge of the battery's shapes.
    static size_t guard_words(size_t count);

private:
    size_t before_ = 0, count_ = 0, after_ = 0;
    DeviceBuffer<float> storage_;
};

}  // namespace workshop
