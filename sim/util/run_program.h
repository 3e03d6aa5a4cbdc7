#pragma once
// Runs a helper program (gnuplot) without a shell: the arguments go to the program
// as they are, so no file or folder name can be read as shell syntax.
#include <string>
#include <vector>

namespace servesim {

struct ProgramResult {
  bool started = false;  // false: the program could not be run (not installed: see error)
  int exit_code = -1;    // its exit status when it exited; -1 when killed by a signal
  std::string error;     // why it did not start (strerror), or "killed by signal N"
};

// Runs argv[0] (looked up in PATH) with the arguments argv[1..] in folder `cwd`, its
// standard output and error both written to `log_path` (relative paths are taken in
// `cwd`), and waits for it.
ProgramResult run_program(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log_path);

}  // namespace servesim
