#pragma once
// Output files are whole or absent. An AtomicFile writes to a temporary name in the
// target's directory, and commit() checks the stream after writing and after closing,
// syncs the data to disk and renames it into place: a full disk, a failed write, an
// exception or Ctrl-C before commit() leave no file (and no temporary) under any
// name, and an older file under the final name stays as it was.
#include <fstream>
#include <string>
#include <string_view>

namespace servesim {

class AtomicFile {
 public:
  // Creates the temporary file; an Error "<path>: cannot write: <OS reason>" if it cannot.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::string& path() const { return path_; }
  // Flush, check, fsync, close and rename into place; on any failure the temporary is
  // removed and an Error names the final path and the OS reason.
  void commit();

 private:
  [[noreturn]] void fail(const char* step, int err);
  std::string path_, temp_;
  std::ofstream out_;
  bool done_ = false;
};

// The whole of `text` to `path`, atomically (AtomicFile).
void write_file_atomically(const std::string& path, std::string_view text);

// Checks before a long run that results can be written: creates `dir` (and its
// parents) if needed and creates and removes a probe file in it. `option` names the
// flag in the error ("--out").
void check_output_dir(const std::string& dir, std::string_view option);
// The same for a file: its directory must exist or be creatable and writable, and
// `path` itself must not be a directory.
void check_output_file(const std::string& path, std::string_view option);

namespace testing {
// Test hook: the next `n` commits fail as if the disk were full (ENOSPC), after the
// data was written to the temporary file. Not for production use.
void fail_next_commits(int n);
}  // namespace testing

}  // namespace servesim
