#pragma once
// A copy of a Request that holds the bytes the original holds. A vector's copy
// has room only for what it stores; a request whose own ids are implied
// (Request::own_ids_implied) may hold room for writing them in place
// (materialize_block_ids), and the queues report a request's bytes (engine.h
// queued_request_bytes, QueuedRequest::bytes), so a copy that is queued keeps
// that room too.
#include "workload/request.h"

namespace servesim {

inline Request copy_request(const Request& r) {
  Request c = r;
  if (r.own_ids_implied) c.block_hashes.reserve(r.block_hashes.capacity());
  return c;
}

}  // namespace servesim
