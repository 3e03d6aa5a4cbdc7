#pragma once
// Output files are whole or absent. An AtomicFile writes to a temporary name in the
// target's directory, and commit() checks every write, syncs the data to disk and
// renames it into place: a full disk, a failed write, an exception, Ctrl-C, SIGTERM or
// SIGHUP before commit() leave no file (and no temporary) under any name, and an
// older file under the final name stays as it was. The target must pass the output
// rule (util/output_target.h): a regular file or nothing, not a link unless links
// are followed, not one of the command's inputs; it is checked when the file is
// created and again just before the rename.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace servesim {

class FdOutBuf;

class AtomicFile {
 public:
  // Creates the temporary file; an Error "<path>: cannot write: <OS reason>" if it
  // cannot, or the output rule's Error for a target it may not replace.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return *out_; }
  const std::string& path() const { return path_; }
  // Flush, check, fsync, close and rename into place; on any failure the temporary is
  // removed and an Error names the final path and the OS's reason (ENOSPC: "No space
  // left on device"). A pending stop signal (util/interrupt.h) ends it as Interrupted
  // before the rename.
  void commit();

  // A file inside a private staging folder (OutputDir): the output rule was applied
  // to the folder, and the file's name is the one it will have there.
  struct Staged {};
  AtomicFile(std::string path, Staged);

 private:
  void open_temp();
  [[noreturn]] void fail(const char* step, int err);
  std::string path_, target_, temp_;
  int fd_ = -1;
  std::unique_ptr<FdOutBuf> buf_;
  std::unique_ptr<std::ostream> out_;
  bool checked_ = true;
  bool done_ = false;
};

// The whole of `text` to `path`, atomically (AtomicFile).
void write_file_atomically(const std::string& path, std::string_view text);

// Checks before a long run that a single output file can be written: the output rule
// (util/output_target.h), then its directory must exist or be creatable (parents are
// created) and writable. `option` names the flag in the error ("--out").
void check_output_file(const std::string& path, std::string_view option);

// The reason for an errno, "unknown reason" for 0.
std::string os_reason(int err);

namespace testing {
// Test hook: the next `n` commits fail as if the disk were full (ENOSPC), after the
// data was written to the temporary file. Not for production use.
void fail_next_commits(int n);
}  // namespace testing

}  // namespace servesim
