#pragma once
// How every binding runs library code: with the GIL released, interruptible by
// Ctrl-C, its warnings issued as Python warnings.
//
// Lock order (issue 33: 4 threads calling servesim.run deadlocked). A thread that
// holds the GIL never waits on a C++ lock (a function-local static's guard, a catalog
// cache's mutex, the warnings list's mutex): all library code runs in `work`, with
// the GIL released, and `work` touches no Python object, so no C++ lock is ever held
// by a thread that waits for the GIL. The Python-side statics (NumPy) are filled
// once at import (columns.h prepare_columns).
//
// Ctrl-C. Python runs signal handlers in the main thread only, and only when that
// thread checks for them. So in the main thread `work` runs on a helper thread
// while the caller checks for signals every kSignalPoll (PyErr_CheckSignals, the GIL
// taken for the check only). When a handler raises (Ctrl-C: KeyboardInterrupt) the
// call's own stop flag is set (util/interrupt.h StopScope), the simulation stops at
// its next poll (every 4096 events; a sweep also before each point), and the
// handler's exception is raised once `work` has returned. Other threads' calls run
// `work` inline and never stop: Python delivers KeyboardInterrupt to the main thread.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/interrupt.h"
#include "util/warnings.h"

namespace servesim::python {

namespace py = pybind11;

inline constexpr std::chrono::milliseconds kSignalPoll{50};

// Set at import: the main thread's id (PyThread_get_thread_ident), the warning class.
void set_main_thread(unsigned long id);
bool in_main_thread();
void set_warning_type(PyObject* type);
// Issues each text as a servesim.ServesimWarning (GIL held); a filter that turns
// warnings into errors raises here.
void issue_warnings(const std::vector<std::string>& texts);
// Blocks the asynchronous signals (SIGINT, SIGTERM, ...) in the calling thread, so
// the kernel delivers them to the main thread that handles them.
void block_async_signals();

// Runs `work()` as said above and returns its value; its exceptions are rethrown
// here (with the GIL held), so pybind11 translates them. The warnings the library
// recorded meanwhile are issued and, when `warnings` is given, stored there too.
template <typename Work>
auto released_call(Work&& work, std::vector<std::string>* warnings = nullptr) -> std::invoke_result_t<Work&> {
  using R = std::invoke_result_t<Work&>;
  std::optional<R> result;
  std::exception_ptr failure;
  std::vector<std::string> recorded;
  auto body = [&] {
    try {
      result.emplace(work());
    } catch (...) {
      failure = std::current_exception();
    }
    recorded = take_warnings();
  };
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;  // a signal handler's exception
  if (!in_main_thread()) {
    py::gil_scoped_release unlocked;
    body();
  } else {
    std::atomic<bool> stop{false};
    py::gil_scoped_release unlocked;
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread helper([&] {
      block_async_signals();
      {
        const StopScope scope(&stop);
        body();
      }
      const std::lock_guard<std::mutex> lock(m);
      done = true;
      cv.notify_one();
    });
    std::unique_lock<std::mutex> lock(m);
    while (!cv.wait_for(lock, kSignalPoll, [&] { return done; })) {
      if (type != nullptr) continue;  // stopping already: wait for `work` to return
      lock.unlock();                  // never wait for the GIL holding a C++ lock
      {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          PyErr_Fetch(&type, &value, &trace);
          stop = true;
        }
      }
      lock.lock();
    }
    lock.unlock();
    helper.join();
  }
  if (warnings) *warnings = recorded;
  if (type != nullptr) {
    PyErr_Restore(type, value, trace);
    throw py::error_already_set();
  }
  issue_warnings(recorded);
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

}  // namespace servesim::python
