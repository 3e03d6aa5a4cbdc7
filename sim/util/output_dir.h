#pragma once
// A folder of output files (`run --out DIR`, `plan --out DIR`, `validate --out DIR`)
// committed as a set: every file is written into a private staging folder first and
// only moved into place once all of them were written and synced, so an error, a full
// disk or a stop signal leaves the folder as it was: a new folder appears whole or not
// at all, an existing one keeps its old files.
//
// Staging: for a folder that does not exist yet, a hidden sibling
// ".NAME.servesim-staging-PID-N" that is renamed to NAME on commit (atomic); for an
// existing folder, a hidden ".servesim-staging-PID-N" inside it whose files are renamed
// over the old ones on commit. While it is written, an existing folder is locked
// (flock), so a second servesim writing the same folder is refused instead of mixing
// files; two writers racing to create the same new folder cannot both win the rename.
// Staging folders left by a killed servesim (its PID gone) are removed.
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "util/atomic_file.h"

namespace servesim {

class OutputDir {
 public:
  // Checks the folder (a directory or nothing; not a link unless links are followed,
  // see util/output_target.h), creates its parents, creates the staging folder (the
  // test that files can be created there) and locks an existing folder. `option`
  // names the flag in errors ("--out").
  OutputDir(std::string dir, std::string_view option);
  ~OutputDir();  // removes the staging folder unless committed
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  const std::string& path() const { return dir_; }
  // The staging folder: a writer that makes its own files (gnuplot) works here.
  const std::string& staging() const { return staging_; }
  // A streamed file `name` of the set (checked, synced and moved on commit()).
  std::ostream& stream(const std::string& name);
  // The whole of `text` as file `name` of the set.
  void write(const std::string& name, std::string_view text);
  // Moves every file of the staging folder into place; an Error (nothing moved) when a
  // file could not be written, Interrupted when a stop signal arrived.
  void commit();

 private:
  std::string dir_, option_, staging_;
  bool existed_ = false;
  bool committed_ = false;
  int lock_fd_ = -1;
  std::vector<std::unique_ptr<AtomicFile>> streams_;
};

}  // namespace servesim
