// A folder of the test's own under the system's temporary folder, removed with everything in it at the end, and
// a file read whole: for the host tests that write files.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

struct ScratchFolder {
    std::filesystem::path path;
    explicit ScratchFolder(const std::string& name = "host-test") {
        std::string pattern = (std::filesystem::temp_directory_path() / (name + ".XXXXXX")).string();
        path = ::mkdtemp(pattern.data());
    }
    ~ScratchFolder() {
        std::error_code ignored;
        std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                     ignored);
        std::filesystem::remove_all(path, ignored);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
};

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
