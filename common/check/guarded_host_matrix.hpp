// A host matrix between two pages that may not be touched, for checking step 1's round trip
// (transpose_from_host, matmul_from_host): the student's own cudaMemcpy calls read and write these matrices.
//
// A byte count that is too large (sizeof(double) for sizeof(float), or another matrix's size) makes cudaMemcpy
// read or write host memory past the matrix. On the device such a copy fails, as the device buffer is too small;
// on the host nothing stops it. Past a plain std::vector it lands in whatever lies there: the program may go on
// and pass, crash later in free(), or die of a SIGSEGV with no word of why. Here the matrix ends exactly where a
// page with no access begins, so the first byte past it faults, and the fault is turned into a FAIL line that
// names the function and the matrix. A page before the matrix does the same for a pointer below it (the matrix
// need not start on a page, so up to a page's worth of bytes before it go unguarded).
#pragma once

#include <cstddef>
#include <string>

namespace workshop {

class GuardedHostMatrix {
public:
    // `function` and `name` go into the FAIL line: "matmul_from_host", "C", "M x N = 5 x 7".
    GuardedHostMatrix(size_t count, const std::string& function, const std::string& name, const std::string& shape);
    ~GuardedHostMatrix();
    GuardedHostMatrix(const GuardedHostMatrix&) = delete;
    GuardedHostMatrix& operator=(const GuardedHostMatrix&) = delete;

    float* data() const { return data_; }
    size_t size() const { return count_; }

private:
    void* mapping_ = nullptr;
    size_t mapping_bytes_ = 0;
    float* data_ = nullptr;
    size_t count_ = 0;
    int slot_ = -1;  // its entry among the guards the fault handler knows
};

}  // namespace workshop
