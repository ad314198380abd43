// workshop_class: the class table (room/class_table.hpp).
//   workshop_class save FOLDER CHECKOUT   this user's record, from the checkout's progress, into the class folder
//   workshop_class show FOLDER            the table (make class)
// Exit 2: bad usage, or no such folder; 1: nothing to show, or the record could not be written (one line why).
#include <fmt/format.h>

#include <iostream>
#include <string>

#include "base/exit_codes.hpp"
#include "base/files.hpp"
#include "room/class_table.hpp"

int main(int argc, char** argv) {
    using namespace workshop;
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "show" && argc == 3) return room::show_class_table(argv[2], std::cout, std::cerr);
    if (what == "save" && argc == 4) {
        try {
            const auto file = room::save_class_record(argv[2], room::read_progress(argv[3]));
            fmt::print("(written to the class folder: {})\n", printable(file.string()));
            return kExitOk;
        } catch (const FileError& e) {
            fmt::print(stderr, "warning: could not write this status to the class folder: {}\n", e.what());
            return kExitWrongAnswer;
        }
    }
    fmt::print(stderr, "usage: workshop_class save FOLDER CHECKOUT | show FOLDER\n");
    return kExitBadUsage;
}
