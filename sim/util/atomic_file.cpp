#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "util/error.h"

namespace servesim {
namespace {

std::atomic<int> g_failing_commits{0};
std::atomic<unsigned> g_temp_counter{0};

std::string reason(int err) { return err != 0 ? std::strerror(err) : "unknown reason"; }

// "dir/.name.tmp-PID-N": hidden, in the same directory (so rename is atomic, never a
// copy across file systems), unique across threads and processes.
std::string temp_name_for(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string name =
      fmt::format(".{}.tmp-{}-{}", p.filename().string(), static_cast<long>(::getpid()), g_temp_counter.fetch_add(1));
  return p.has_parent_path() ? (p.parent_path() / name).string() : name;
}

// Pushes the file's data to disk before the rename makes it visible, so a crash of the
// machine cannot leave a complete-looking name over an empty file. Best effort: a file
// system that cannot fsync (EINVAL) is not an error.
int sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = 0;
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  ::close(fd);
  return err;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_(temp_name_for(path_)) {
  std::error_code ec;
  if (std::filesystem::is_directory(path_, ec))
    throw Error(fmt::format("{}: cannot write: is a directory", path_));
  errno = 0;
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const int err = errno;
    throw Error(fmt::format("{}: cannot write: {}", path_, reason(err)));
  }
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  out_.close();
  std::remove(temp_.c_str());
}

void AtomicFile::fail(const char* step, int err) {
  out_.close();
  std::remove(temp_.c_str());
  done_ = true;
  // A buffered stream loses errno between the failing write and the check: when it
  // says nothing, ask the file system whether it is full, the usual cause.
  std::string why = reason(err);
  if (err == 0) {
    struct statvfs fs {};
    const std::filesystem::path dir = std::filesystem::path(temp_).parent_path();
    if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0 && fs.f_bavail == 0)
      why = std::strerror(ENOSPC);
  }
  throw Error(fmt::format("{}: cannot write ({}): {}; no file was written", path_, step, why));
}

void AtomicFile::commit() {
  if (done_) return;
  errno = 0;
  out_.flush();
  if (!out_) fail("write", errno);
  if (g_failing_commits.load() > 0 && g_failing_commits.fetch_sub(1) > 0) fail("write", ENOSPC);
  errno = 0;
  out_.close();
  if (out_.fail()) fail("close", errno);
  if (const int err = sync_file(temp_); err != 0) fail("sync", err);
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) fail("rename", errno);
  done_ = true;
}

void write_file_atomically(const std::string& path, std::string_view text) {
  AtomicFile f(path);
  f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  f.commit();
}

void check_output_dir(const std::string& dir, std::string_view option) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{} {}: cannot create directory: {}", option, dir, ec.message()));
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(fmt::format("{} {}: not a directory", option, dir));
  // Create and remove a probe: the only reliable test of "can create a file here"
  // (permissions, a read-only mount, ACLs, quotas on inodes).
  const std::string probe = temp_name_for(dir + "/.probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw Error(fmt::format("{} {}: cannot create files there: {}", option, dir, reason(err)));
  }
  ::close(fd);
  std::remove(probe.c_str());
}

void check_output_file(const std::string& path, std::string_view option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{} {}: is a directory, expected a file name", option, path));
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  check_output_dir(parent.empty() ? "." : parent.string(), option);
}

namespace testing {
void fail_next_commits(int n) { g_failing_commits.store(n); }
}  // namespace testing

}  // namespace servesim
