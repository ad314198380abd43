// workshop_gpu: which GPU a command runs on (room/gpus.hpp), for launch.sh and the scripts that keep to one GPU.
//   workshop_gpu pick [WANT]   the CUDA_VISIBLE_DEVICES value for a command (nothing: leave it to CUDA), WANT being
//                              WORKSHOP_GPU; on a terminal, a line on stderr says why, where the choice was ours
//   workshop_gpu this          the UUID of the GPU this command runs on, where it can be told
//   workshop_gpu processes     how many processes nvidia-smi lists on it (nothing where it is not known)
// Exit 2: a WANT it cannot use, one line saying why.
#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "base/exit_codes.hpp"
#include "room/gpus.hpp"

namespace {

using namespace workshop;

// Who decides between equally idle GPUs: WORKSHOP_STUDENT, else the login.
std::string student() {
    if (const char* name = std::getenv("WORKSHOP_STUDENT"); name && *name) return name;
    const passwd* entry = ::getpwuid(::geteuid());
    return entry ? entry->pw_name : "";
}

int pick(const std::string& want) {
    try {
        const room::Pick picked = room::pick_gpu(want, student());
        if (!picked.gpu.empty()) fmt::print("{}\n", picked.gpu);
        if (!picked.why.empty() && ::isatty(STDERR_FILENO)) fmt::print(stderr, "({})\n", picked.why);
        return kExitOk;
    } catch (const room::SettingError& e) {
        fmt::print(stderr, "{}\n", e.what());
        return kExitBadUsage;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "pick" && argc <= 3) return pick(argc == 3 ? argv[2] : "");
    if (what == "this" && argc == 2) {
        const std::string uuid = room::this_gpu_uuid();
        if (!uuid.empty()) fmt::print("{}\n", uuid);
        return kExitOk;
    }
    if (what == "processes" && argc == 2) {
        const std::string uuid = room::this_gpu_uuid();
        if (!uuid.empty()) fmt::print("{}\n", room::processes_on(uuid));
        return kExitOk;
    }
    fmt::print(stderr, "usage: workshop_gpu pick [WORKSHOP_GPU] | this | processes\n");
    return kExitBadUsage;
}
