// The output rule (sim/util/output_target.h, atomic_file.h, output_dir.h): servesim
// replaces only regular files it was asked to write, never a device, a FIFO, a link
// (unless asked) or one of its own inputs; a folder of outputs appears whole or not at
// all; a second writer of the same folder is refused. Tests run as root, where a
// rename over /dev/null would succeed: the refusals must come before any rename.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/output_dir.h"
#include "util/output_target.h"
#include "util/paths.h"

using namespace servesim;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("servesim-outrule-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
  std::size_t entries() const {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(path)) ++n;
    return n;
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct FollowReset {
  ~FollowReset() {
    set_follow_output_symlinks(false);
    forget_input_files();
    request_interrupt(false);
  }
};

}  // namespace

TEST_CASE("output rule: device files are refused before anything is renamed", "[output]") {
  struct stat before {};
  REQUIRE(::stat("/dev/null", &before) == 0);
  CHECK_THROWS_WITH(write_file_atomically("/dev/null", "x"),
                    Contains("/dev/null: is a character device") && Contains("regular files"));
  CHECK_THROWS_WITH(write_file_atomically("/dev/full", "x"), Contains("is a character device"));
  CHECK_THROWS_WITH(check_output_file("/dev/null", "--out"), Contains("--out /dev/null: is a character device"));
  struct stat after {};
  REQUIRE(::stat("/dev/null", &after) == 0);
  CHECK(S_ISCHR(after.st_mode));  // still the device
  CHECK(after.st_ino == before.st_ino);
}

TEST_CASE("output rule: a FIFO is refused (a writer would block or replace it)", "[output]") {
  TempDir d("fifo");
  REQUIRE(::mkfifo((d / "pipe").c_str(), 0644) == 0);
  CHECK_THROWS_WITH(write_file_atomically(d / "pipe", "x"), Contains("is a FIFO"));
  CHECK(d.entries() == 1);  // the FIFO only, no temporary
}

TEST_CASE("output rule: a symbolic link is refused unless links are followed, then its target is written",
          "[output]") {
  FollowReset reset;
  TempDir d("link");
  write_file_atomically(d / "real.csv", "old\n");
  fs::create_symlink(d / "real.csv", d / "link.csv");
  CHECK_THROWS_WITH(write_file_atomically(d / "link.csv", "new\n"),
                    Contains("is a symbolic link") && Contains("--follow-symlinks"));
  CHECK(fs::is_symlink(d / "link.csv"));
  CHECK(slurp(d / "real.csv") == "old\n");
  set_follow_output_symlinks(true);
  write_file_atomically(d / "link.csv", "new\n");
  CHECK(fs::is_symlink(d / "link.csv"));  // the link stays a link
  CHECK(slurp(d / "real.csv") == "new\n");
  // A followed link to a device is still a device.
  fs::create_symlink("/dev/null", d / "null-link");
  CHECK_THROWS_WITH(write_file_atomically(d / "null-link", "x"), Contains("is a character device"));
}

TEST_CASE("output rule: a file this command read as input is refused, under any of its names", "[output]") {
  FollowReset reset;
  TempDir d("input");
  write_file_atomically(d / "sweep.csv", "point,status\n0,ok\n");
  (void)read_text_file(d / "sweep.csv");  // the command's input
  CHECK_THROWS_WITH(write_file_atomically(d / "sweep.csv", "<html>"),
                    Contains("is one of this command's inputs"));
  fs::create_hard_link(d / "sweep.csv", d / "same.csv");
  CHECK_THROWS_WITH(write_file_atomically(d / "same.csv", "<html>"), Contains("inputs"));
  CHECK(slurp(d / "sweep.csv") == "point,status\n0,ok\n");
  write_file_atomically(d / "report.html", "<html>");  // another file is fine
}

TEST_CASE("output rule: an inode counts as an input only while the path it was read from names it", "[output]") {
  // A long run (the test suite, the Python module) reads files that are deleted later; the file
  // system gives their inodes to new files, which are not those inputs. Moving the input away
  // from the path it was read from stands in for that deterministically: the inode the registry
  // holds no longer answers to that path, and a file now holding it may be written.
  FollowReset reset;
  TempDir d("stale");
  write_file_atomically(d / "scratch.csv", "a\n");
  (void)read_text_file(d / "scratch.csv");
  fs::rename(d / "scratch.csv", d / "new.csv");
  write_file_atomically(d / "new.csv", "b\n");
  CHECK(slurp(d / "new.csv") == "b\n");
}

TEST_CASE("output folder: a new folder appears whole on commit, or not at all", "[output]") {
  TempDir d("newdir");
  {
    OutputDir out(d / "run", "--out");
    out.stream("requests.csv") << "id\n1\n";
    out.write("summary.json", "{}\n");
    CHECK_FALSE(fs::exists(d / "run"));  // only the hidden staging folder so far
    out.commit();
  }
  CHECK(slurp(d / "run/summary.json") == "{}\n");
  CHECK(slurp(d / "run/requests.csv") == "id\n1\n");
  CHECK(d.entries() == 1);  // run/, no staging folder left

  // A failure in the middle (the second file cannot be written): no folder.
  {
    OutputDir out(d / "run2", "--out");
    out.write("summary.json", "{}\n");
    testing::fail_next_commits(1);
    CHECK_THROWS_WITH(out.write("timeline.csv", "t\n"), Contains("No space left on device"));
  }
  CHECK_FALSE(fs::exists(d / "run2"));
  CHECK(d.entries() == 1);
}

TEST_CASE("output folder: an existing folder keeps its old files when the new set fails", "[output]") {
  TempDir d("olddir");
  fs::create_directories(d / "run");
  write_file_atomically(d / "run/summary.json", "old\n");
  {
    OutputDir out(d / "run", "--out");
    out.write("summary.json", "new\n");
    out.stream("requests.csv") << "id\n";
    testing::fail_next_commits(1);  // the streamed file's commit
    CHECK_THROWS_AS(out.commit(), Error);
  }
  CHECK(slurp(d / "run/summary.json") == "old\n");
  CHECK_FALSE(fs::exists(d / "run/requests.csv"));
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d / "run")) ++n;
  CHECK(n == 1);  // no staging folder left inside
}

TEST_CASE("output folder: a stop signal before commit leaves the folder as it was", "[output]") {
  FollowReset reset;
  TempDir d("signal");
  OutputDir out(d / "run", "--out");
  out.write("summary.json", "{}\n");
  request_interrupt();
  CHECK_THROWS_AS(out.commit(), Interrupted);
  request_interrupt(false);
  CHECK_FALSE(fs::exists(d / "run"));
}

TEST_CASE("output folder: a second writer of the same folder is refused while the first holds it", "[output]") {
  TempDir d("lock");
  fs::create_directories(d / "run");
  OutputDir first(d / "run", "--out");
  CHECK_THROWS_WITH(OutputDir(d / "run", "--out"), Contains("another servesim is writing into this folder"));
}

TEST_CASE("output folder: devices, files and links are not folders, and a dead process's staging is removed",
          "[output]") {
  FollowReset reset;
  TempDir d("kinds");
  CHECK_THROWS_WITH(OutputDir("/dev/null", "--out"), Contains("not a folder"));
  write_file_atomically(d / "file", "x");
  CHECK_THROWS_WITH(OutputDir(d / "file", "--out"), Contains("exists and is not a folder"));
  fs::create_directories(d / "real");
  fs::create_directory_symlink(d / "real", d / "link");
  CHECK_THROWS_WITH(OutputDir(d / "link", "--out"), Contains("is a symbolic link"));
  // PID 999999999 is above Linux's pid_max (4194304): that process cannot exist.
  fs::create_directories(d / ".out.servesim-staging-999999999-0");
  { OutputDir out(d / "out", "--out"); }
  CHECK_FALSE(fs::exists(d / ".out.servesim-staging-999999999-0"));
}
