#pragma once
// The one mapping from "how a command ended" to an exit code and a message, kept
// out of main() so the tests can check it: 0 ok, 1 bad input or infeasible scenario
// (servesim::Error), 2 usage (CLI11, in main), 3 internal error (any other
// exception: a bug to report, never a verdict on the input), 130 interrupted (Ctrl-C;
// 143 for SIGTERM, 129 for SIGHUP).
#include <exception>
#include <ostream>

namespace servesim {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternalError = 3;
inline constexpr int kExitInterrupted = 130;

// Prints what ended the command to `err` and returns its exit code.
int report_exception(const std::exception_ptr& e, std::ostream& err);

}  // namespace servesim
