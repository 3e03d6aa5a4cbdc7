#include "util/exit_status.h"

#include <csignal>
#include <new>

#include "util/error.h"
#include "util/interrupt.h"

namespace servesim {

int report_exception(const std::exception_ptr& e, std::ostream& err) {
  try {
    std::rethrow_exception(e);
  } catch (const Interrupted& x) {
    err << x.what() << "\n";
    // 128 + the signal, as a shell reports a process that the signal ended.
    const int sig = interrupt_signal();
    return sig > 0 && sig != SIGINT ? 128 + sig : kExitInterrupted;
  } catch (const Error& x) {
    err << "error: " << x.what() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Nothing the user can fix by reading about a key: say what ran out.
    err << "internal error: out of memory (the scenario may be too large for this machine)\n";
    return kExitInternalError;
  } catch (const std::exception& x) {
    // Every exception that leaves the library should be a servesim::Error naming
    // the input; reaching here is a bug.
    err << "internal error: " << x.what() << "\nplease report this with the command that caused it\n";
    return kExitInternalError;
  } catch (...) {
    err << "internal error: unknown exception\nplease report this with the command that caused it\n";
    return kExitInternalError;
  }
}

}  // namespace servesim
