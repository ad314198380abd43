// Every cudaMemcpy, cudaMemcpyAsync, cudaMemcpy2D and cudaMemcpy2DAsync names the direction of its copy (its kind),
// and CUDA calls a kind that does not fit the pointers undefined behaviour. On a GPU with unified addressing the
// runtime finds the way anyway when neither side is pageable host memory: a copy back still named
// cudaMemcpyHostToDevice, copied from the line above, works by luck into pinned memory (cudaMallocHost, or the
// caller's memory registered with cudaHostRegister, as step 1's lesson suggests) and fails (invalid argument) the
// day the host memory is pageable; a device-to-device copy named cudaMemcpyHostToDevice can work by luck too.
// So while a check runs, each of the program's copies is compared with the memory its pointers point to. The link
// step sends the four calls through the comparison (the linker's --wrap, set in CMakeLists.txt, as for
// allocations.hpp). cudaMemcpyDefault, which lets the runtime work the direction out, fits every copy; managed
// memory fits either side.
#pragma once

#include <string>

namespace workshop {

// How many of the copies made while a check ran named a direction their memory does not fit, and each of them, from
// number 0 on ("a cudaMemcpy of 4 bytes named cudaMemcpyHostToDevice, from device memory to device memory").
int copies_in_the_wrong_direction();
std::string the_copy_in_the_wrong_direction(int number);

// While one lives, each copy in the wrong direction is said to be made `where` ("at 263x263x263, a larger size that
// the leak check calls it with"): a call the check makes at another size than the shape it judges.
class CopiesMadeElsewhere {
public:
    explicit CopiesMadeElsewhere(std::string where);
    ~CopiesMadeElsewhere();
    CopiesMadeElsewhere(const CopiesMadeElsewhere&) = delete;
    CopiesMadeElsewhere& operator=(const CopiesMadeElsewhere&) = delete;
};

}  // namespace workshop
