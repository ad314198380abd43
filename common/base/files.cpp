#include "base/files.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace workshop {

namespace {

std::string reason(int error) { return std::strerror(error); }

std::string owner_name(uid_t uid) {
    const passwd* entry = ::getpwuid(uid);
    return entry ? printable(entry->pw_name) : fmt::format("uid {}", uid);
}

// Closes a descriptor once, whatever path leaves the scope.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return fd_; }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_;
};

void write_all(int fd, std::string_view content, const std::filesystem::path& shown) {
    while (!content.empty()) {
        const ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw FileError(fmt::format("cannot write {}: {}", shown.string(), reason(n < 0 ? errno : ENOSPC)));
        content.remove_prefix(static_cast<size_t>(n));
    }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
    const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
    std::string name = (folder / ("." + path.filename().string() + ".XXXXXX")).string();
    std::vector<char> pattern(name.begin(), name.end());
    pattern.push_back('\0');
    Descriptor fd(::mkostemp(pattern.data(), O_CLOEXEC));  // O_EXCL, mode 0600, a random name
    if (fd.get() < 0) throw FileError(fmt::format("cannot write {}: {}", path.string(), reason(errno)));
    const std::string temporary(pattern.data());
    try {
        write_all(fd.get(), content, path);
        if (::fchmod(fd.get(), 0644) != 0 || ::fsync(fd.get()) != 0)
            throw FileError(fmt::format("cannot write {}: {}", path.string(), reason(errno)));
        if (::close(fd.release()) != 0)
            throw FileError(fmt::format("cannot write {}: {}", path.string(), reason(errno)));
        if (::rename(temporary.c_str(), path.c_str()) != 0)
            throw FileError(fmt::format("cannot replace {}: {}", path.string(), reason(errno)));
    } catch (...) {
        ::unlink(temporary.c_str());
        throw;
    }
}

void make_shared_folder(const std::filesystem::path& folder) {
    if (folder.has_parent_path() && folder.parent_path() != folder) {
        std::error_code ignored;
        std::filesystem::create_directories(folder.parent_path(), ignored);
    }
    // mkdir applies the umask; the chmod that follows is on a folder this user has just made, in a parent where a
    // folder of that name did not exist a moment ago.
    if (::mkdir(folder.c_str(), 01777) == 0 && ::chmod(folder.c_str(), 01777) != 0)
        throw FileError(fmt::format("cannot share {}: {}", folder.string(), reason(errno)));
    struct stat st {};
    if (::lstat(folder.c_str(), &st) != 0)
        throw FileError(fmt::format("cannot make {}: {}", folder.string(), reason(errno)));
    if (!S_ISDIR(st.st_mode))
        throw FileError(fmt::format("{} is not a folder (a link or a file is there)", folder.string()));
    // Whoever owns a folder may rename or remove any file in it, sticky or not; so may everyone in a folder others
    // may write to that is not sticky. Another user's sticky folder is as safe as /tmp: the worst its owner can do
    // is take the files away, which the callers report.
    const bool sticky = st.st_mode & S_ISVTX;
    if (st.st_uid != 0 && st.st_uid != ::geteuid() && !sticky)
        throw FileError(
            fmt::format("{} belongs to {} and is not sticky: another user could replace its files; "
                        "remove it, or have it made with mode 1777",
                        folder.string(), owner_name(st.st_uid)));
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !sticky)
        throw FileError(
            fmt::format("{} may be written by others but is not sticky (mode {:o}): another user could "
                        "replace its files",
                        folder.string(), st.st_mode & 07777));
}

int open_lock_file(const std::filesystem::path& path) {
    // Opened first without O_CREAT: where the kernel protects regular files in sticky folders
    // (fs.protected_regular), O_CREAT on another user's existing file is refused even for reading.
    constexpr int kFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int opened = ::open(path.c_str(), kFlags);
    if (opened < 0 && errno == ENOENT) {
        opened = ::open(path.c_str(), kFlags | O_CREAT | O_EXCL, 0644);
        if (opened < 0 && errno == EEXIST) opened = ::open(path.c_str(), kFlags);
    }
    Descriptor fd(opened);
    if (fd.get() < 0) {
        const int error = errno;
        if (error == ELOOP) throw FileError(fmt::format("{} is a link: not opened", path.string()));
        throw FileError(fmt::format("cannot open {}: {}", path.string(), reason(error)));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw FileError(fmt::format("{} is not a regular file: not used as a lock", path.string()));
    return fd.release();
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return content.str();
}

std::string printable(std::string_view text) {
    std::string shown;
    shown.reserve(text.size());
    for (const unsigned char c : text) {
        if (c < 0x20 || c == 0x7f)
            shown += fmt::format("\\x{:02x}", c);
        else
            shown += static_cast<char>(c);
    }
    return shown;
}

}  // namespace workshop
