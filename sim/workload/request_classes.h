#pragma once
// Request classes (workload.classes, config/read_classes.cpp): traffic of different
// importance sharing one fleet, each class with its share of the requests, its
// priority, its own SLO (Scenario::class_slos: SLOs are the metrics' concern) and, at
// the gateway (run/gateway.h), its rate limit and queue limit.
//
//   workload:
//     classes:
//       - {name: interactive, share: 0.3, priority: 10, slo: {ttft_ms: {p99: 500}}}
//       - {name: batch, share: 0.6, priority: 0, max_queue: 2000}
//       - {name: free, share: 0.1, priority: -1, rate_limit: 5, burst: 10}
//
// Priority follows the Gateway API Inference Extension (InferenceObjective.priority):
// higher is more important; a negative priority is sheddable (a saturated gateway
// drops it at once rather than queue it). vLLM's own request priority runs the other
// way (lower first); servesim keeps one convention, this one.
//
// Which class a request belongs to is a pure function of (workload.seed, request id),
// as a LoRA adapter is (lora_adapters.h): nothing is stored per request, and the same
// request is in the same class whatever engine serves it. The turns of one session
// (multi_turn, closed-loop users: Request::session) share one class, drawn from the
// session's number: an agent's session is one kind of traffic.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace servesim {

struct RequestClassSpec {
  std::string name;
  double share = 0;            // fraction of the requests; the classes' shares add to 1
  int priority = 0;            // higher first; negative: sheddable at a saturated gateway
  double rate_limit = 0;       // token bucket refill, requests per second; 0: no limit
  double burst = 0;            // the bucket's size in requests (default: max(1, rate_limit))
  std::int64_t max_queue = -1;  // requests of this class held at the gateway at once; -1: no limit
};

class ClassAssignment {
 public:
  ClassAssignment(std::vector<RequestClassSpec> classes, std::uint64_t seed);
  // The class of request `id` of session `session` (-1: none), in [0, size()).
  int of(std::int64_t id, std::int32_t session = -1) const {
    if (classes_.size() == 1) return 0;
    // Sessions draw from keys below 0, requests from their ids (>= 0): never the same key.
    return draw(session >= 0 ? -1 - static_cast<std::int64_t>(session) : id);
  }
  int size() const { return static_cast<int>(classes_.size()); }
  const RequestClassSpec& spec(int c) const { return classes_[static_cast<std::size_t>(c)]; }
  const std::vector<RequestClassSpec>& specs() const { return classes_; }
  int priority(int c) const { return classes_[static_cast<std::size_t>(c)].priority; }
  // Whether two classes differ in priority (else priority changes no decision).
  bool ranked() const { return ranked_; }

 private:
  int draw(std::int64_t key) const;

  std::vector<RequestClassSpec> classes_;
  std::vector<double> cdf_;  // cumulative shares (cdf_.back() == 1)
  std::uint64_t key_;        // seed mixed with the stream name
  bool ranked_ = false;
};

}  // namespace servesim
