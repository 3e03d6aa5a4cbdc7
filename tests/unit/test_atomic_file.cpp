// Outputs whole or absent (sim/util/atomic_file.h): a failed write leaves no file under
// the final name and no temporary beside it, and an older file keeps its content.
// Tests run as root, where permissions do not stop a write, so failures are injected
// with the test hook (ENOSPC at commit) or made with a parent that is a regular file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/atomic_file.h"
#include "util/error.h"

using namespace servesim;
using Catch::Contains;
namespace fs = std::filesystem;

namespace {

// A fresh, empty directory per test, removed afterwards.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("servesim-atomic-" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
  // Every entry, hidden temporaries included.
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

}  // namespace

TEST_CASE("atomic file: a write lands whole under the final name, with no temporary left", "[atomic]") {
  TempDir d("ok");
  write_file_atomically(d / "out.csv", "a,b\n1,2\n");
  CHECK(slurp(d / "out.csv") == "a,b\n1,2\n");
  CHECK(d.entries() == 1);  // out.csv only
}

TEST_CASE("atomic file: a failed write leaves nothing, and an older file unchanged", "[atomic]") {
  TempDir d("fail");
  testing::fail_next_commits(1);
  REQUIRE_THROWS_WITH(write_file_atomically(d / "new.csv", "x\n"),
                      Contains("new.csv: cannot write") && Contains("No space left on device") &&
                          Contains("no file was written"));
  CHECK_FALSE(fs::exists(d / "new.csv"));
  CHECK(d.entries() == 0);  // the temporary is gone too

  write_file_atomically(d / "old.csv", "old\n");
  testing::fail_next_commits(1);
  REQUIRE_THROWS_AS(write_file_atomically(d / "old.csv", "new and longer\n"), Error);
  CHECK(slurp(d / "old.csv") == "old\n");
  CHECK(d.entries() == 1);
  // The hook is spent: the next write succeeds.
  write_file_atomically(d / "old.csv", "new\n");
  CHECK(slurp(d / "old.csv") == "new\n");
}

TEST_CASE("atomic file: an AtomicFile dropped without commit (an exception, Ctrl-C) leaves nothing", "[atomic]") {
  TempDir d("drop");
  {
    AtomicFile f(d / "requests.csv");
    f.stream() << "id,ttft\n1,2\n";
    CHECK(d.entries() == 1);  // the temporary, while writing
  }
  CHECK(d.entries() == 0);
}

TEST_CASE("atomic file: a target under a regular file or a directory as target is an error naming it", "[atomic]") {
  TempDir d("parent");
  write_file_atomically(d / "plain", "x");
  CHECK_THROWS_WITH(write_file_atomically(d / "plain/out.csv", "y"),
                    Contains("plain/out.csv") && Contains("Not a directory"));
  CHECK_THROWS_WITH(write_file_atomically(d.path.string(), "y"), Contains("is a directory"));
}

TEST_CASE("atomic file: --out checks create the parent directories or say why they cannot", "[atomic]") {
  TempDir d("check");
  write_file_atomically(d / "file", "x");
  CHECK_THROWS_WITH(check_output_file(d / "file/x.csv", "--out"), Contains("Not a directory"));
  CHECK_THROWS_WITH(check_output_file(d.path.string(), "--out"), Contains("is a directory"));
  CHECK_NOTHROW(check_output_file(d / "a/b/x.csv", "--out"));
  CHECK(fs::is_directory(d / "a/b"));
  CHECK(fs::is_empty(d / "a/b"));            // no probe left behind
  CHECK_FALSE(fs::exists(d / "a/b/x.csv"));  // checked, not created
}
