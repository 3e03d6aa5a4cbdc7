#pragma once
// Per-request results and timeline rows as columns (one NumPy array per field, or an
// array.array where NumPy is not installed), so pandas.DataFrame(columns) builds a
// frame without a Python object per row.
#include <pybind11/pybind11.h>

#include <vector>

#include "metrics/collector.h"
#include "metrics/request_result.h"

namespace servesim::python {

// Imports NumPy (when installed) and fills pybind11's NumPy statics. Called once at
// import, with the GIL: a static first filled by a later call would hold its C++
// initialisation guard through NumPy's import, which releases the GIL, and a second
// thread holding the GIL and waiting on that guard would deadlock both (issue 33).
void prepare_columns();

// id, replica, arrival_s, input/output/cached_tokens, queue/ttft/tpot/e2e_ms,
// preemptions, failed, failure. Latencies of a failed request, and TPOT of a
// one-token output, are NaN (requests.csv leaves those cells empty).
pybind11::dict request_columns(const RequestResults& rows);
// The columns of timeline.csv, by the same names: time_s, replica, batch_size,
// prefill/decode_tokens, kv_blocks_used/total, queue_length, step_time_ms, fused_steps, bound.
pybind11::dict timeline_columns(const std::vector<TimelineRow>& rows);

}  // namespace servesim::python
