// Source paths as a student reads them: "step3/transpose.cu", not the absolute path the compiler was given.
#pragma once

#include <string>

namespace workshop {

inline std::string short_source_path(const std::string& path) {
    const auto last = path.rfind('/');
    if (last == std::string::npos || last == 0) return path;
    const auto before = path.rfind('/', last - 1);
    return before == std::string::npos ? path : path.substr(before + 1);
}

}  // namespace workshop
