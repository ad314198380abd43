// Files on a machine that other users share. Anyone may plant a link, a FIFO or a file of their own at a name in
// a folder every user can write, so nothing here follows a link, blocks on a FIFO, or trusts a folder another user
// controls; and a result is written whole or not at all, so a full disk or a read-only mount leaves the old one.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace workshop {

// A file could not be written or opened safely; what() is one line that names the file and the reason.
struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Writes `content` to a new file beside `path` (a name no one can guess, created exclusively), checks every write,
// flushes it to disk and renames it over `path`. On any failure the temporary file is removed, `path` is left as it
// was, and FileError says why.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Makes `folder` (and its parents) as a folder that every user may add to but no user may empty of another's files
// (mode 1777, like /tmp), or accepts it where it exists already and is safe to share: a real folder (not a link)
// owned by root or by this user, and sticky wherever others may write to it. Throws FileError otherwise, naming
// the owner or the mode that makes it unsafe.
void make_shared_folder(const std::filesystem::path& folder);

// Opens `path` for flock(2), creating it (mode 0644) where it is missing: read-only (flock needs no more, so one
// user's file serves every user), without following a link and without blocking on a FIFO. Returns the descriptor
// (close-on-exec). Throws FileError where `path` is a link, not a regular file, or cannot be opened.
int open_lock_file(const std::filesystem::path& path);

// All that `path` holds; nothing where it cannot be opened or read.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

// A name or any text another user chose, fit to print on a terminal: control characters (escape sequences among
// them) shown as \xNN, everything else as it is.
std::string printable(std::string_view text);

}  // namespace workshop
