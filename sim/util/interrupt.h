#pragma once
// Ctrl-C (SIGINT), SIGTERM and SIGHUP as a request to stop, not a kill: the handler
// only records the signal; long loops (sweep and plan points, the simulation's event
// loop every few thousand events) and every output commit poll it and throw
// Interrupted, so temporary files are removed and nothing half-written is left under
// a final name. main() turns that into exit code 128 + the signal's number (130 for
// Ctrl-C, 143 for SIGTERM, 129 for SIGHUP) after the command has said what it kept.
#include <atomic>
#include <string>

#include "util/error.h"

namespace servesim {

class Interrupted : public Error {
 public:
  explicit Interrupted(const std::string& message) : Error(message) {}
};

// Installs the handlers for SIGINT, SIGTERM and SIGHUP (main() calls it once; a
// second signal of the same kind kills as usual).
void install_interrupt_handler();
// True once one of those signals arrived (or a test asked for it).
bool interrupt_requested();
// The signal that asked to stop (SIGINT when a test or request_interrupt() did); 0 when none.
int interrupt_signal();
// Test hook and reset: sets or clears the flag without a signal (as SIGINT).
void request_interrupt(bool on = true);
// Throws Interrupted("interrupted") when the flag is set.
void throw_if_interrupted();

// One caller's own stop request, beside the process-wide flag: the Python module
// stops the call whose thread saw Ctrl-C and lets other threads' calls go on. While
// a StopScope lives on a thread, interrupt_requested() there is also true once its
// flag is set; parallel_for (planning/sweep.h) carries the caller's flag into its
// workers. A null flag adds nothing.
class StopScope {
 public:
  explicit StopScope(const std::atomic<bool>* flag);
  ~StopScope();
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};
// The flag of the innermost StopScope on this thread; nullptr when there is none.
const std::atomic<bool>* current_stop_flag();

}  // namespace servesim
