#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <streambuf>

#include <fmt/format.h>

#include "util/error.h"
#include "util/interrupt.h"
#include "util/output_target.h"

namespace servesim {

// A stream buffer over a file descriptor that keeps the errno of the first failed
// write: std::ofstream loses it between the failing write and the check, so a full
// disk used to read as "unknown reason".
class FdOutBuf : public std::streambuf {
 public:
  explicit FdOutBuf(int fd) : fd_(fd), buf_(new char[kSize]) { setp(buf_.get(), buf_.get() + kSize); }
  int error() const { return err_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n <= epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    if (!drain()) return 0;
    if (n < kSize) return xsputn(s, n);
    return write_all(s, static_cast<std::size_t>(n)) ? n : 0;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr std::ptrdiff_t kSize = 1 << 16;
  bool write_all(const char* p, std::size_t n) {
    if (err_ != 0) return false;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        err_ = errno;
        return false;
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }
  bool drain() {
    const bool ok = write_all(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    setp(buf_.get(), buf_.get() + kSize);
    return ok;
  }
  int fd_;
  int err_ = 0;
  std::unique_ptr<char[]> buf_;
};

namespace {

std::atomic<int> g_failing_commits{0};
std::atomic<unsigned> g_temp_counter{0};

// "dir/.name.tmp-PID-N": hidden, in the same directory (so rename is atomic, never a
// copy across file systems), unique across threads and processes.
std::string temp_name_for(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string name =
      fmt::format(".{}.tmp-{}-{}", p.filename().string(), static_cast<long>(::getpid()), g_temp_counter.fetch_add(1));
  return p.has_parent_path() ? (p.parent_path() / name).string() : name;
}

}  // namespace

std::string os_reason(int err) { return err != 0 ? std::strerror(err) : "unknown reason"; }

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  target_ = checked_output_target(path_, "");
  open_temp();
}

AtomicFile::AtomicFile(std::string path, Staged) : path_(std::move(path)), target_(path_), checked_(false) {
  open_temp();
}

void AtomicFile::open_temp() {
  temp_ = temp_name_for(target_);
  // O_EXCL: the temporary is a new file of ours, never something that appeared under its name.
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    throw Error(fmt::format("{}: cannot write: {}", path_, os_reason(err)));
  }
  buf_ = std::make_unique<FdOutBuf>(fd_);
  out_ = std::make_unique<std::ostream>(buf_.get());
}

AtomicFile::~AtomicFile() {
  if (done_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(temp_.c_str());
}

void AtomicFile::fail(const char* step, int err) {
  // The reason is taken before the temporary goes: removing it frees the space a
  // full disk lacked.
  const std::string why = os_reason(err);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_.c_str());
  done_ = true;
  throw Error(fmt::format("{}: cannot write ({}): {}; no file was written", path_, step, why));
}

void AtomicFile::commit() {
  if (done_) return;
  out_->flush();
  if (buf_->error() != 0) fail("write", buf_->error());
  if (!*out_) fail("write", EIO);
  if (g_failing_commits.load() > 0 && g_failing_commits.fetch_sub(1) > 0) fail("write", ENOSPC);
  // Pushes the data to disk before the rename makes it visible, so a crash of the
  // machine cannot leave a complete-looking name over an empty file. A file system
  // that cannot fsync (EINVAL, EROFS) is not an error.
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("sync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close", errno);
  if (interrupt_requested()) {
    ::unlink(temp_.c_str());
    done_ = true;
    throw Interrupted(fmt::format("interrupted: {} not written", path_));
  }
  // Again just before the rename: the target may have been replaced by a link or a
  // device while the command ran.
  if (checked_) {
    try {
      if (checked_output_target(path_, "") != target_) throw Error(fmt::format("{}: changed while servesim ran", path_));
    } catch (const Error& e) {
      ::unlink(temp_.c_str());
      done_ = true;
      throw Error(std::string(e.what()) + "; no file was written");
    }
  }
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) fail("rename", errno);
  done_ = true;
}

void write_file_atomically(const std::string& path, std::string_view text) {
  AtomicFile f(path);
  f.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  f.commit();
}

void check_output_file(const std::string& path, std::string_view option) {
  const std::string target = checked_output_target(path, option);
  const std::filesystem::path parent = std::filesystem::path(target).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{} {}: cannot create directory {}: {}", option, path, dir, ec.message()));
  // Create and remove a probe: the only reliable test of "can create a file here"
  // (permissions, a read-only mount, ACLs, quotas on inodes).
  const std::string probe = temp_name_for(dir + "/.probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw Error(fmt::format("{} {}: cannot create files in {}: {}", option, path, dir, os_reason(err)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace testing {
void fail_next_commits(int n) { g_failing_commits.store(n); }
}  // namespace testing

}  // namespace servesim
