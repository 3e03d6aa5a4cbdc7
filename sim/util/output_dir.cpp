#include "util/output_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "util/error.h"
#include "util/interrupt.h"
#include "util/output_target.h"

namespace servesim {
namespace {
namespace fs = std::filesystem;

std::atomic<unsigned> g_staging_counter{0};

// The PID in a staging name "<prefix><PID>-<N>"; 0 when the name is not ours.
long staging_pid(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return 0;
  const std::string rest = name.substr(prefix.size());
  const auto dash = rest.find('-');
  if (dash == std::string::npos || dash == 0) return 0;
  long pid = 0;
  for (std::size_t i = 0; i < dash; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return 0;
    pid = pid * 10 + (rest[i] - '0');
    if (pid > 1'000'000'000) return 0;
  }
  return pid;
}

// Removes staging folders named `<prefix><PID>-<N>` in `where` whose process is gone
// (a servesim killed by SIGKILL or a power cut cannot clean up after itself).
void remove_stale_staging(const std::string& where, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(where, ec)) {
    const long pid = staging_pid(entry.path().filename().string(), prefix);
    if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    std::error_code rm;
    if (entry.is_directory(rm) && !entry.is_symlink(rm)) fs::remove_all(entry.path(), rm);
  }
}

void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: the renames' durability, not their correctness
  ::close(fd);
}

}  // namespace

OutputDir::OutputDir(std::string dir, std::string_view option) : dir_(std::move(dir)), option_(option) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  if (dir_.empty()) throw Error(fmt::format("{}: give a folder name", option_));
  struct stat st {};
  std::string target = dir_;
  if (::lstat(dir_.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(dir_, ec);
    if (!follow_output_symlinks())
      throw Error(fmt::format("{} {}: is a symbolic link{}; servesim writes into real folders only: name the folder "
                              "itself, or give `servesim --follow-symlinks ...` to write to where the link points",
                              option_, dir_, ec ? "" : fmt::format(" (to {})", resolved.string())));
    if (ec) throw Error(fmt::format("{} {}: cannot follow the symbolic link: {}", option_, dir_, ec.message()));
    target = resolved.string();
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      throw Error(fmt::format("{} {}: exists and is not a folder; give a folder name (it is created if needed)",
                              option_, dir_));
    existed_ = true;
    dir_ = target;
    lock_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0) throw Error(fmt::format("{} {}: cannot open the folder: {}", option_, dir_, os_reason(errno)));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(lock_fd_);
      lock_fd_ = -1;
      throw Error(err == EWOULDBLOCK
                      ? fmt::format("{} {}: another servesim is writing into this folder; wait for it to finish or "
                                    "choose another folder",
                                    option_, dir_)
                      : fmt::format("{} {}: cannot lock the folder: {}", option_, dir_, os_reason(err)));
    }
    remove_stale_staging(dir_, ".servesim-staging-");
    staging_ = fmt::format("{}/.servesim-staging-{}-{}", dir_, static_cast<long>(::getpid()),
                           g_staging_counter.fetch_add(1));
  } else {
    if (errno != ENOENT)
      throw Error(fmt::format("{} {}: cannot check the folder: {}", option_, dir_, os_reason(errno)));
    dir_ = target;
    const fs::path p(dir_);
    const std::string parent = p.has_parent_path() ? p.parent_path().string() : ".";
    std::error_code ec;
    fs::create_directories(parent, ec);
    if (ec) throw Error(fmt::format("{} {}: cannot create folder {}: {}", option_, dir_, parent, ec.message()));
    const std::string prefix = fmt::format(".{}.servesim-staging-", p.filename().string());
    remove_stale_staging(parent, prefix);
    staging_ = fmt::format("{}/{}{}-{}", parent, prefix, static_cast<long>(::getpid()), g_staging_counter.fetch_add(1));
  }
  if (::mkdir(staging_.c_str(), 0755) != 0) {
    const int err = errno;
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw Error(fmt::format("{} {}: cannot create files there: {}", option_, dir_, os_reason(err)));
  }
}

OutputDir::~OutputDir() {
  streams_.clear();  // their temporaries first
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

std::ostream& OutputDir::stream(const std::string& name) {
  streams_.push_back(std::make_unique<AtomicFile>(staging_ + "/" + name, AtomicFile::Staged{}));
  return streams_.back()->stream();
}

void OutputDir::write(const std::string& name, std::string_view text) {
  AtomicFile f(staging_ + "/" + name, AtomicFile::Staged{});
  f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  f.commit();
}

void OutputDir::commit() {
  if (committed_) return;
  for (auto& s : streams_) s->commit();  // each checked and synced, still in the staging folder
  throw_if_interrupted();
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(staging_, ec)) names.push_back(entry.path().filename().string());
  if (ec) throw Error(fmt::format("{} {}: cannot list the staged files: {}", option_, dir_, ec.message()));
  sync_dir(staging_);
  if (!existed_) {
    if (std::rename(staging_.c_str(), dir_.c_str()) != 0) {
      const int err = errno;
      throw Error(err == ENOTEMPTY || err == EEXIST
                      ? fmt::format("{} {}: the folder was created by another process while servesim ran; nothing "
                                    "written",
                                    option_, dir_)
                      : fmt::format("{} {}: cannot create the folder: {}; nothing written", option_, dir_,
                                    os_reason(err)));
    }
    committed_ = true;
    const fs::path parent = fs::path(dir_).parent_path();
    sync_dir(parent.empty() ? "." : parent.string());
    return;
  }
  // An existing folder: every old file that will be replaced must itself be a regular
  // file we may replace, checked for all before the first is moved.
  for (const auto& name : names) (void)checked_output_target(dir_ + "/" + name, option_);
  for (const auto& name : names) {
    const std::string from = staging_ + "/" + name, to = dir_ + "/" + name;
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throw Error(fmt::format("{} {}: cannot move {} into place: {}", option_, dir_, name, os_reason(errno)));
  }
  committed_ = true;
  ::rmdir(staging_.c_str());
  sync_dir(dir_);
}

}  // namespace servesim
