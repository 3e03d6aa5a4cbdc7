#pragma once
// A request waiting in an engine's queue, in 48 bytes instead of a Request's 72:
// an overloaded run may queue millions of requests, and what they hold is the
// run's memory (docs/speed.md: 10M requests at 5x overload). The fields every
// request has are kept in place; the prefix-hash fields, which only prefix-aware
// workloads fill, move to one heap object (null when there are none). A
// QueuedRequest gives back exactly the Request it was made from.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "workload/request.h"

namespace servesim {

class QueuedRequest {
 public:
  // Inline: enqueue builds one per request (the compiler left it out of line once the
  // priority queue built them too: +0.1-0.3% instructions on bench-chat).
  [[gnu::always_inline]] explicit QueuedRequest(Request&& r)
      : id_(r.id), arrival_(r.arrival), input_tokens_(r.input_tokens), output_tokens_(r.output_tokens),
        session_(r.session), own_ids_implied_(r.own_ids_implied), system_ids_implied_(r.system_ids_implied),
        extended_later_(r.extended_later), last_turn_(r.last_turn) {
    if (!r.block_hashes.empty() || r.hash_block_tokens != 0 || r.unique_hashes_from != Request::kNotUnique)
      prefix_ = std::make_unique<Prefix>(Prefix{std::move(r.block_hashes), r.hash_block_tokens, r.unique_hashes_from});
  }

  std::int64_t id() const { return id_; }
  Nanos arrival() const { return arrival_; }
  std::int64_t input_tokens() const { return input_tokens_; }
  std::int64_t output_tokens() const { return output_tokens_; }
  std::int32_t session() const { return session_; }

  // The Request again (the queued one is left without its hashes).
  Request take() {
    Request r;
    fill(r);
    if (prefix_) r.block_hashes = std::move(prefix_->hashes);
    return r;
  }
  // A copy of the Request (for reports about a request that stays queued; its
  // stored ids are copied, the implied ones stay implied).
  Request copy() const {
    Request r;
    fill(r);
    if (prefix_) r.block_hashes = prefix_->hashes;
    return r;
  }
  // Memory it holds: itself, and its hashes when it has them.
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(sizeof(QueuedRequest)) +
           (prefix_ ? static_cast<std::int64_t>(sizeof(Prefix) + prefix_->hashes.capacity() * sizeof(std::uint64_t)) : 0);
  }

 private:
  struct Prefix {
    std::vector<std::uint64_t> hashes;
    std::int32_t hash_block_tokens;
    std::int32_t unique_hashes_from;
  };
  void fill(Request& r) const {
    r.id = id_;
    r.arrival = arrival_;
    r.input_tokens = input_tokens_;
    r.output_tokens = output_tokens_;
    r.session = session_;
    r.own_ids_implied = own_ids_implied_;
    r.system_ids_implied = system_ids_implied_;
    r.extended_later = extended_later_;
    r.last_turn = last_turn_;
    if (prefix_) {
      r.hash_block_tokens = prefix_->hash_block_tokens;
      r.unique_hashes_from = prefix_->unique_hashes_from;
    }
  }

  std::int64_t id_;
  Nanos arrival_;
  std::int64_t input_tokens_, output_tokens_;
  std::unique_ptr<Prefix> prefix_;
  std::int32_t session_;
  bool own_ids_implied_, system_ids_implied_, extended_later_, last_turn_;  // in session_'s padding: the object stays 48 bytes
};
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8
static_assert(sizeof(QueuedRequest) == 48, "QueuedRequest grew: waiting_peak_bytes per request changes with it");
#endif

}  // namespace servesim
