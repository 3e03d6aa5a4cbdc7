#include "columns.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>
#include <map>
#include <string>

#include "cost/step_cost.h"
#include "metrics/failure.h"

namespace py = pybind11;

namespace servesim::python {
namespace {

// Set once at import (prepare_columns), never lazily: see columns.h.
bool g_numpy = false;

bool have_numpy() { return g_numpy; }

template <typename T>
constexpr const char* typecode() {
  if constexpr (std::is_same_v<T, double>) return "d";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "q";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i";
  else return "b";  // bool
}

// One column: a NumPy array (or array.array) filled from `get` over the rows.
template <typename T, typename Rows, typename Get>
py::object column(const Rows& rows, Get get) {
  if (have_numpy()) {
    py::array_t<T> a(static_cast<py::ssize_t>(rows.size()));
    T* out = a.mutable_data();
    for (std::size_t i = 0; i < rows.size(); ++i) out[i] = get(rows[i]);
    return a;
  }
  using Stored = std::conditional_t<std::is_same_v<T, bool>, std::int8_t, T>;
  std::vector<Stored> values(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) values[i] = static_cast<Stored>(get(rows[i]));
  py::object a = py::module_::import("array").attr("array")(typecode<T>());
  a.attr("frombytes")(py::bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(Stored)));
  return a;
}

// A column of short strings from a small vocabulary: one Python str per distinct
// value, shared by the rows (a list of the same few objects, not one per row).
template <typename Rows, typename Name>
py::list names(const Rows& rows, Name name) {
  py::list out(rows.size());
  std::map<std::string, py::str> interned;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string text(name(rows[i]));
    auto it = interned.find(text);
    if (it == interned.end()) it = interned.emplace(text, py::str(text)).first;
    out[i] = it->second;
  }
  return out;
}

}  // namespace

void prepare_columns() {
  try {
    py::module_::import("numpy");
    g_numpy = true;
  } catch (const py::error_already_set&) {
    g_numpy = false;  // array.array columns
    return;
  }
  // pybind11's NumPy API table and each dtype are function-local statics filled on
  // first use (importing numpy.core.multiarray): fill them now, one array per type.
  (void)py::array_t<double>(0);
  (void)py::array_t<std::int64_t>(0);
  (void)py::array_t<std::int32_t>(0);
  (void)py::array_t<bool>(0);
}

py::dict request_columns(const RequestResults& rows) {
  const double nan = std::nan("");
  py::dict d;
  using R = RequestResult;
  d["id"] = column<std::int64_t>(rows, [](const R& r) { return r.id; });
  d["replica"] = column<std::int32_t>(rows, [](const R& r) { return r.replica; });
  d["arrival_s"] = column<double>(rows, [](const R& r) { return r.arrival_s; });
  d["input_tokens"] = column<std::int64_t>(rows, [](const R& r) { return r.input_tokens; });
  d["output_tokens"] = column<std::int64_t>(rows, [](const R& r) { return r.output_tokens; });
  d["cached_tokens"] = column<std::int64_t>(rows, [](const R& r) { return r.cached_tokens; });
  d["queue_ms"] = column<double>(rows, [nan](const R& r) { return r.failed ? nan : r.queue_ms; });
  d["ttft_ms"] = column<double>(rows, [nan](const R& r) { return r.failed ? nan : r.ttft_ms; });
  d["tpot_ms"] = column<double>(rows, [nan](const R& r) { return r.has_tpot() ? r.tpot_ms : nan; });
  d["e2e_ms"] = column<double>(rows, [nan](const R& r) { return r.failed ? nan : r.e2e_ms; });
  d["preemptions"] = column<std::int32_t>(rows, [](const R& r) { return r.preemptions; });
  d["failed"] = column<bool>(rows, [](const R& r) { return r.failed; });
  d["failure"] = names(rows, [](const R& r) { return failure_name(r.failure); });
  return d;
}

py::dict timeline_columns(const std::vector<TimelineRow>& rows) {
  py::dict d;
  using T = TimelineRow;
  d["time_s"] = column<double>(rows, [](const T& r) { return r.time_s; });
  d["step_time_ms"] = column<double>(rows, [](const T& r) { return r.step_time_ms; });
  d["replica"] = column<std::int64_t>(rows, [](const T& r) { return r.replica; });
  d["batch_size"] = column<std::int64_t>(rows, [](const T& r) { return r.batch; });
  d["prefill_tokens"] = column<std::int64_t>(rows, [](const T& r) { return r.prefill_tokens; });
  d["decode_tokens"] = column<std::int64_t>(rows, [](const T& r) { return r.decode_tokens; });
  d["kv_blocks_used"] = column<std::int64_t>(rows, [](const T& r) { return r.kv_used; });
  d["kv_blocks_total"] = column<std::int64_t>(rows, [](const T& r) { return r.kv_total; });
  d["queue_length"] = column<std::int64_t>(rows, [](const T& r) { return r.queue; });
  d["fused_steps"] = column<std::int64_t>(rows, [](const T& r) { return r.steps; });
  d["bound"] = names(rows, [](const T& r) { return bound_name(r.bound); });
  return d;
}

}  // namespace servesim::python
