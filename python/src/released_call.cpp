#include "released_call.h"

#include <pythread.h>

#include <csignal>

namespace servesim::python {
namespace {
unsigned long g_main_thread = 0;
PyObject* g_warning_type = nullptr;
}  // namespace

void set_main_thread(unsigned long id) { g_main_thread = id; }

bool in_main_thread() { return PyThread_get_thread_ident() == g_main_thread; }

void set_warning_type(PyObject* type) { g_warning_type = type; }

void issue_warnings(const std::vector<std::string>& texts) {
  // stacklevel 2: the line that called the servesim function (1 is the package's
  // own wrapper that called into this module).
  for (const auto& text : texts)
    if (PyErr_WarnEx(g_warning_type, text.c_str(), 2) != 0) throw py::error_already_set();
}

void block_async_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGCHLD, SIGWINCH, SIGPIPE})
    sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace servesim::python
