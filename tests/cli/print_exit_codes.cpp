// Prints the exit codes of base/exit_codes.hpp as the programs have them, NAME=VALUE a line, for exit_codes.sh to
// compare with the shell's reading of the same header (base/exit_codes.sh). A code added to the header and not
// here makes that test fail, so the list stays whole.
#include <cstdio>

#include "base/exit_codes.hpp"

int main() {
    using namespace workshop;
    struct Named {
        const char* name;
        int code;
    };
    const Named codes[] = {{"kExitOk", kExitOk},
                           {"kExitWrongAnswer", kExitWrongAnswer},
                           {"kExitBadUsage", kExitBadUsage},
                           {"kExitNoDevice", kExitNoDevice},
                           {"kExitOutOfMemory", kExitOutOfMemory},
                           {"kExitCudaError", kExitCudaError},
                           {"kExitLauncherRefused", kExitLauncherRefused},
                           {"kExitCannotWrite", kExitCannotWrite}};
    for (const Named& c : codes) std::printf("%s=%d\n", c.name, c.code);
    return 0;
}
