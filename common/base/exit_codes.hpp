// Exit codes shared by every workshop program, so scripts and tests can tell the failures apart. The shell reads
// them from this file (base/exit_codes.sh), under the same names: keep one `kExitName = N,` a line.
#pragma once

namespace workshop {

enum ExitCode : int {
    kExitOk = 0,
    kExitWrongAnswer = 1,      // the kernel ran but its output is wrong
    kExitBadUsage = 2,         // a bad option or size
    kExitNoDevice = 3,         // no CUDA device (or no usable driver)
    kExitOutOfMemory = 4,      // the sizes asked for do not fit in device (or host) memory; from --check and
                               // --sanitize: NOT CHECKED, part of the check could not run here (that, or a busy GPU)
    kExitCudaError = 5,        // a CUDA call or a kernel failed
    kExitLauncherRefused = 6,  // common/room/launch.sh: the room's launcher (srun) refused the job or stopped it
    kExitCannotWrite = 7,  // a result could not be written (full disk, read-only folder); the older one is left whole
};

}  // namespace workshop
