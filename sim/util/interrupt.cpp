#include "util/interrupt.h"

#include <csignal>

namespace servesim {
namespace {

// Lock-free so the handler may touch it (std::atomic<int> is on every target we build for).
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
// This thread's StopScope flag (nullptr: none).
thread_local const std::atomic<bool>* t_stop = nullptr;

extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
  // Back to the default action: a second signal ends a process that stopped listening.
  std::signal(sig, SIG_DFL);
}

}  // namespace

void install_interrupt_handler() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_stop_signal);
}

bool interrupt_requested() {
  return g_signal.load(std::memory_order_relaxed) != 0 || (t_stop != nullptr && t_stop->load(std::memory_order_relaxed));
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

void request_interrupt(bool on) { g_signal.store(on ? SIGINT : 0, std::memory_order_relaxed); }

void throw_if_interrupted() {
  if (interrupt_requested()) throw Interrupted("interrupted");
}

StopScope::StopScope(const std::atomic<bool>* flag) : previous_(t_stop) { t_stop = flag; }

StopScope::~StopScope() { t_stop = previous_; }

const std::atomic<bool>* current_stop_flag() { return t_stop; }

}  // namespace servesim
