// Writes a buggy variant of a step file: the source with the lines a .bug file names replaced.
//   make_bug BUG_FILE SOURCE OUTPUT
// A .bug file holds "from:" and "expect:" lines (read by CMake), then edits: a "- " line gives a whole source line
// (compared without its indentation) that must occur exactly once; the "+ " lines after it replace it, with its
// indentation (none: the line is deleted). A bug that no longer applies to its source stops the build, so the
// suite cannot quietly test nothing.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

struct Edit {
    std::string find;
    std::vector<std::string> replace;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: make_bug BUG_FILE SOURCE OUTPUT\n";
        return 2;
    }
    try {
        std::vector<Edit> edits;
        for (const auto& line : read_lines(argv[1])) {
            if (line.rfind("- ", 0) == 0)
                edits.push_back({trimmed(line.substr(2)), {}});
            else if (line.rfind("+ ", 0) == 0 && !edits.empty())
                edits.back().replace.push_back(line.substr(2));
        }
        if (edits.empty()) throw std::runtime_error(std::string(argv[1]) + ": no '- ' line to change");

        std::vector<std::string> source = read_lines(argv[2]);
        for (const Edit& e : edits) {
            std::vector<size_t> at;
            for (size_t i = 0; i < source.size(); ++i)
                if (trimmed(source[i]) == e.find) at.push_back(i);
            if (at.size() != 1)
                throw std::runtime_error(std::string(argv[1]) + ": '" + e.find + "' occurs " +
                                         std::to_string(at.size()) + " times in " + argv[2] + " (it must occur once)");
            const std::string indent = source[at[0]].substr(0, source[at[0]].find_first_not_of(" \t"));
            std::vector<std::string> with;
            for (const auto& r : e.replace) with.push_back(indent + r);
            source.erase(source.begin() + at[0]);
            source.insert(source.begin() + at[0], with.begin(), with.end());
        }

        auto last_two = [](const std::string& path) {
            const auto last = path.rfind('/');
            const auto before = last == std::string::npos || last == 0 ? std::string::npos : path.rfind('/', last - 1);
            return before == std::string::npos ? path : path.substr(before + 1);
        };
        std::ostringstream out;
        out << "// Generated from " << last_two(argv[2]) << " by " << last_two(argv[1])
            << ": a bug a student makes, on purpose.\n";
        for (const auto& line : source) out << line << "\n";
        std::ofstream(argv[3]) << out.str();
    } catch (const std::exception& error) {
        std::cerr << "error: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
