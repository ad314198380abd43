// Files in shared places: written whole or not at all, never through a planted link or FIFO.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/files.hpp"
#include "scratch_folder.hpp"

namespace fs = std::filesystem;
using workshop::FileError;

TEST(Files, AnAtomicWriteReplacesTheOldFileAndLeavesNothingElse) {
    ScratchFolder dir;
    workshop::write_file_atomically(dir.path / "results.csv", "old\n");
    workshop::write_file_atomically(dir.path / "results.csv", "new\n");
    EXPECT_EQ(read_file(dir.path / "results.csv"), "new\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(Files, AFullDiskIsAnErrorNotAShortFile) {
    ScratchFolder dir;
    workshop::write_file_atomically(dir.path / "chart.svg", "whole\n");
    bool threw = false;
    {
        const FileSizeLimit full_disk(4096);
        ASSERT_TRUE(full_disk.set());
        try {
            workshop::write_file_atomically(dir.path / "chart.svg", std::string(10000, 'x'));
        } catch (const FileError& e) {
            threw = true;
            EXPECT_NE(std::string(e.what()).find("chart.svg"), std::string::npos) << e.what();
        }
    }
    EXPECT_TRUE(threw);
    EXPECT_EQ(read_file(dir.path / "chart.svg"), "whole\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(Files, ALockFileIsNeverALinkOrAFifo) {
    ScratchFolder dir;
    const fs::path victim = dir.path / "victim";
    { std::ofstream(victim) << "mine\n"; }
    fs::create_symlink(victim, dir.path / "GPU-x.timing");
    EXPECT_THROW(workshop::open_lock_file(dir.path / "GPU-x.timing"), FileError);
    ASSERT_EQ(::mkfifo((dir.path / "GPU-x.0").c_str(), 0666), 0);
    EXPECT_THROW(workshop::open_lock_file(dir.path / "GPU-x.0"), FileError);  // and it returns at once
    const int fd = workshop::open_lock_file(dir.path / "GPU-x.1");
    EXPECT_GE(fd, 0);
    ::close(fd);
    EXPECT_EQ(read_file(victim), "mine\n");
    EXPECT_EQ(fs::status(victim).permissions() & fs::perms::others_write, fs::perms::none);
}

TEST(Files, ASharedFolderIsStickyAndAnotherUsersOpenFolderIsRefused) {
    ScratchFolder dir;
    const fs::path shared = dir.path / "turns";
    workshop::make_shared_folder(shared);
    struct stat st {};
    ASSERT_EQ(::lstat(shared.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 01777u);
    workshop::make_shared_folder(shared);  // accepted as it is the second time

    const fs::path open_folder = dir.path / "open";
    fs::create_directory(open_folder);
    fs::permissions(open_folder, fs::perms::all);  // 0777, not sticky
    EXPECT_THROW(workshop::make_shared_folder(open_folder), FileError);

    const fs::path link = dir.path / "link";
    fs::create_directory_symlink(shared, link);
    EXPECT_THROW(workshop::make_shared_folder(link), FileError);

    if (::geteuid() != 0) return;  // giving a folder away needs root (CI runs as root)
    const fs::path theirs = dir.path / "theirs";
    fs::create_directory(theirs);
    ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chmod(theirs.c_str(), 0755), 0);
    EXPECT_THROW(workshop::make_shared_folder(theirs), FileError);
    ASSERT_EQ(::chmod(theirs.c_str(), 01777), 0);
    EXPECT_NO_THROW(workshop::make_shared_folder(theirs));
}

TEST(Files, ControlCharactersArePrintedAsEscapes) {
    EXPECT_EQ(workshop::printable("carol"), "carol");
    EXPECT_EQ(workshop::printable("a\x1b[2Jb\n"), "a\\x1b[2Jb\\x0a");
}
