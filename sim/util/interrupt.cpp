#include "util/interrupt.h"

#include <csignal>

namespace servesim {
namespace {

// Lock-free so the handler may touch it (std::atomic<bool> is on every target we build for).
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);
// This thread's StopScope flag (nullptr: none).
thread_local const std::atomic<bool>* t_stop = nullptr;

extern "C" void on_sigint(int) {
  g_interrupted.store(true, std::memory_order_relaxed);
  // Back to the default action: a second Ctrl-C ends a process that stopped listening.
  std::signal(SIGINT, SIG_DFL);
}

}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }

bool interrupt_requested() {
  return g_interrupted.load(std::memory_order_relaxed) || (t_stop != nullptr && t_stop->load(std::memory_order_relaxed));
}

void request_interrupt(bool on) { g_interrupted.store(on, std::memory_order_relaxed); }

void throw_if_interrupted() {
  if (interrupt_requested()) throw Interrupted("interrupted");
}

StopScope::StopScope(const std::atomic<bool>* flag) : previous_(t_stop) { t_stop = flag; }

StopScope::~StopScope() { t_stop = previous_; }

const std::atomic<bool>* current_stop_flag() { return t_stop; }

}  // namespace servesim
