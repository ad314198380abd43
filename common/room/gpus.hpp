// Which GPU a command runs on, where one machine has several and no scheduler hands them out, as nvidia-smi tells
// it. Every answer degrades to "not known" (empty) where nvidia-smi is missing or fails: the command then runs
// where CUDA puts it, and nothing of the room's is in its way.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace workshop::room {

// A setting that cannot be used (WORKSHOP_GPU, WORKSHOP_CHECKS_PER_GPU, ...): what() is the one line to print.
struct SettingError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Gpu {
    std::string number;  // as nvidia-smi numbers them
    std::string uuid;
    std::string name;
    bool split = false;  // into MIG instances, which share neither bandwidth nor contexts
};

// The GPUs nvidia-smi lists (only the one named by `uuid`, where given); none where it is missing or fails.
std::vector<Gpu> list_gpus(const std::string& uuid = "");

// The UUID of the GPU this command runs on, where that can be told: the one CUDA_VISIBLE_DEVICES names by UUID,
// or the only one nvidia-smi lists, and not split into MIG instances. Empty otherwise.
std::string this_gpu_uuid();

// How many compute processes nvidia-smi lists on that GPU.
int processes_on(const std::string& uuid);

// What CUDA_VISIBLE_DEVICES should be for a command (empty: leave it to CUDA), and a line saying why, where the
// choice was ours. `want` is WORKSHOP_GPU: idle (or empty), any, a number as nvidia-smi gives it, or a UUID;
// `student` decides between GPUs that are equally busy. Throws SettingError for a `want` it cannot use.
struct Pick {
    std::string gpu;
    std::string why;
};
Pick pick_gpu(const std::string& want, const std::string& student);

}  // namespace workshop::room
