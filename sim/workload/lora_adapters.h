#pragma once
// Multi-LoRA serving, the workload's side (`workload.lora`, read by
// config/read_lora.cpp): many LoRA adapters fine-tuned from one base model, each
// request naming one of them or the base model.
//
//   lora: {adapters: 200, rank: 16, popularity: zipf, zipf_s: 1.0, share: 1.0}
//
// Which adapter a request uses is a pure function of (workload.seed, request id):
// a counter-based draw, SplitMix64 of the seed, the stream name "lora" and the id,
// exactly as a request's patience is drawn (workload/patience.h); the turns of a
// session (multi_turn, closed-loop users: Request::session) share one adapter, drawn
// from the session's number instead (a conversation stays with its fine-tune). So a request
// carries no adapter field (Request and QueuedRequest keep their sizes), an
// engine or a router recomputes it when it needs it, and no other random stream
// is perturbed: with lora unset nothing changes.
//
// Draw k = 0 decides base model or adapter (an adapter with probability `share`);
// draw k = 1 picks the adapter: uniform over the adapters, or Zipf (adapter i,
// 0-based, with probability proportional to 1 / (i + 1)^s: adapter 0 is the most
// popular), by inverting the cumulative weights (a binary search of a table of
// `adapters` doubles built once).
#include <cstdint>
#include <string_view>
#include <vector>

namespace servesim {

enum class LoraPopularity { uniform, zipf };

struct LoraWorkloadSpec {
  std::int64_t adapters = 0;  // distinct adapters, >= 1
  std::int64_t rank = 16;     // every adapter's rank r (A is d_in x r, B is r x d_out)
  LoraPopularity popularity = LoraPopularity::zipf;
  double zipf_s = 1.0;        // Zipf exponent (zipf only)
  double share = 1.0;         // fraction of requests that use an adapter; the rest use the base model
};

std::string_view lora_popularity_name(LoraPopularity p);

class LoraAssignment {
 public:
  static constexpr std::int32_t kBase = -1;  // the request uses the base model

  LoraAssignment(const LoraWorkloadSpec& spec, std::uint64_t seed);
  // The adapter of request `id` of session `session` (-1: none), in [0, adapters), or kBase.
  std::int32_t adapter(std::int64_t id, std::int32_t session = -1) const {
    // Sessions draw from keys below 0, requests from their ids (>= 0): never the same key.
    return draw(session >= 0 ? -1 - static_cast<std::int64_t>(session) : id);
  }
  const LoraWorkloadSpec& spec() const { return spec_; }
  // The probability that a request uses adapter i (share x its popularity weight).
  double probability(std::int64_t i) const;

 private:
  std::int32_t draw(std::int64_t key) const;
  double uniform01(std::int64_t key, std::uint64_t k) const;

  LoraWorkloadSpec spec_;
  std::uint64_t key_;         // seed mixed with the stream name
  std::vector<double> cdf_;   // zipf: cumulative weights, normalised (cdf_.back() == 1)
};

}  // namespace servesim
