// Turns on a GPU for make check. One check runs up to five CUDA programs at once (the battery, the sanitizers,
// the timing run), and a GPU takes only so many contexts before it refuses more: so at most
// WORKSHOP_CHECKS_PER_GPU checks (4 unless set, 0 for no limit) run on one GPU at once, the others wait in the
// order they came, and the timings of all the checks on one GPU take turns (measure/gpu_timing_lock.hpp).
//
// A turn is a flock on one of that many files, <UUID>.<n>, in <TMPDIR or /tmp>/workshop-gpu-turns/, so that the
// turns count every user's checks; the folder also holds the timing lock, <UUID>.timing, and a marker,
// <UUID>.waiting.<time>.<pid>, locked by each check for as long as it waits. Every user may plant a link, a FIFO or
// a folder of their own at those names, so the files are opened through base/files.hpp (read-only, no link
// followed, no FIFO waited on), and a folder that is unsafe turns the turns off with one line saying why.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

namespace workshop::room {

// Where the turns of every GPU are kept.
std::filesystem::path turns_folder();

// How many make checks wait for a turn on that GPU now (their markers, locked).
int checks_waiting_on(const std::string& uuid);

struct TurnSettings {
    int turns = 4;              // WORKSHOP_CHECKS_PER_GPU; 0: no limit
    double wait_limit_s = 300;  // WORKSHOP_TURN_WAIT_LIMIT: a check paused (Ctrl-Z) in its turn holds no one longer
};

// The settings from the environment, read as decimal numbers; throws SettingError (gpus.hpp) for one that is not.
TurnSettings turn_settings_from_environment();

// What a check got: the descriptor that holds its turn (-1: none, it runs without), and the timing lock of its
// GPU (empty: none). Every line for the student (waiting, going ahead without a turn, turns off and why) is
// written to `say` as it happens.
struct Turn {
    int fd = -1;
    std::string timing_lock;
    std::string description;  // for WORKSHOP_TURN: "<UUID>.<n>", or why there is none
};
Turn take_a_turn(const std::string& uuid, const TurnSettings& settings, std::FILE* say);

}  // namespace workshop::room
