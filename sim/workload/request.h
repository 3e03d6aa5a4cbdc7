#pragma once
// One request as the workload hands it to the serving engine.
#include <cstdint>
#include <vector>

#include "core/sim_time.h"

namespace servesim {

struct Request {
  std::int64_t id = 0;             // 0,1,2,... in arrival order
  Nanos arrival = 0;               // when the request reaches the server
  std::int64_t input_tokens = 0;   // prompt length
  std::int64_t output_tokens = 0;  // tokens to generate (ignore_eos semantics)
  // Prefix structure for prefix caching: hash of each full prompt block of
  // `hash_block_tokens` tokens, in order; equal leading hashes = shared prefix.
  // Empty when the workload has no prefix information. Only some of them when
  // ids are implied (own_ids_implied, system_ids_implied below): read them through
  // PromptIds (workload/prompt_ids.h), which gives the whole list either way.
  std::vector<std::uint64_t> block_hashes;
  std::int32_t hash_block_tokens = 0;
  // block_hashes[j] for j >= unique_hashes_from belong to this request alone: no
  // other request's prompt contains them (the synthetic workload's per-request
  // question), or, with extended_later, to its conversation alone. The prefix cache keeps such blocks as one run (prefix_cache.h).
  // The ones before it are a shared system prompt named by its first hash: two
  // requests with the same block_hashes[0] and unique_hashes_from have the same
  // hashes before it (the prefix cache keeps them as one chain, and the engine
  // hashes them once, BlockHashChains).
  // size() (or more) when that is not known: traces, repeated prompts, conversations.
  std::int32_t unique_hashes_from = kNotUnique;
  static constexpr std::int32_t kNotUnique = 0x7fffffff;
  std::int32_t session = -1;       // closed-loop user / multi-turn session, -1 if none
  // The request's own ids are implied, not stored (the synthetic workload's
  // per-request questions: HashOwner::request): id j >= unique_hashes_from is
  // prefix_block_hash(HashOwner::request, id, j), and block_hashes holds none of
  // them. materialize_block_ids (workload/prompt_ids.h) writes every implied id
  // into block_hashes. Why: a request's own ids are read only after a preemption
  // or by a CPU tier, and with thousands of requests in flight writing ~1 KB of
  // them each missed the caches.
  bool own_ids_implied = false;
  // The system prompt's ids after its first are implied by the first (the
  // synthetic workload's shared system prompts, HashOwner::group): block_hashes
  // then holds that one id, the prompt's name n, and id j < unique_hashes_from is
  // prefix_owner_id(prefix_hash_unmix(n), j) (workload/prefix_hash.h: n is
  // prefix_owner_id(base, 0) = prefix_hash_mix(base)). Why: the router and the
  // engine's hash memo read only the name; copying the ~64 ids into every
  // request was an allocation and ~1 KB written cold per request with many
  // replicas in flight.
  bool system_ids_implied = false;
  // A later request of the same owner (the next turn of its conversation, or the
  // next request repeating the prompt) starts with this whole prompt, ids and all:
  // the synthetic multi-turn and repeated-prompt workloads. Its
  // ids from unique_hashes_from on are then its conversation's (no other
  // conversation's prompt contains them, though its later turns do), so the
  // prefix cache keeps them as runs, as for a request's own blocks; every block is
  // hashed up front (a later turn's run may already hold any of them), and one
  // past the last (a run a later turn registered may reach past this prompt's end:
  // taking only this prompt's part of it splits it there).
  bool extended_later = false;
  // The last turn of its session (the closed-loop session workload, session_source.h):
  // its answer ends the session, so per-session metrics close it then.
  bool last_turn = false;
};
// own_ids_implied, system_ids_implied, extended_later and last_turn live in session's padding: a Request is the 72 bytes the
// decode-only engine's queue reports per request (engine.h, queued_request_bytes).
#if defined(__GLIBCXX__) && __SIZEOF_POINTER__ == 8
static_assert(sizeof(Request) == 72, "Request grew: the queues' reported bytes per request change with it");
#endif

}  // namespace servesim
