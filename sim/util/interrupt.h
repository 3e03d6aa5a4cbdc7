#pragma once
// Ctrl-C (SIGINT) as a request to stop, not a kill: the handler only sets a flag;
// long loops (sweep and plan points, the simulation's event loop every few thousand
// events) poll it and throw Interrupted, and main() turns that into exit code 130
// after the command has said what it kept.
#include <atomic>
#include <string>

#include "util/error.h"

namespace servesim {

class Interrupted : public Error {
 public:
  explicit Interrupted(const std::string& message) : Error(message) {}
};

// Installs the SIGINT handler (main() calls it once; a second Ctrl-C kills as usual).
void install_interrupt_handler();
// True once SIGINT arrived (or a test asked for it).
bool interrupt_requested();
// Test hook and reset: sets or clears the flag without a signal.
void request_interrupt(bool on = true);
// Throws Interrupted("interrupted") when the flag is set.
void throw_if_interrupted();

}  // namespace servesim
