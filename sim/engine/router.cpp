#include "engine/router.h"

#include <fmt/format.h>

#include <limits>

#include "util/error.h"
#include "util/text.h"

namespace servesim {

std::vector<std::pair<std::string, std::string>> router_registry() {
  return {{"round_robin", "replicas in turn"},
          {"least_outstanding", "the replica with the fewest waiting + running requests"},
          {"least_kv", "the replica with the lowest KV-cache use"},
          {"prefix_affinity",
           "the replica that last served the same first prompt block (least_outstanding for new "
           "prefixes, or when that replica has over twice the least load)"},
          {"scored",
           "llm-d's weighted scorers: prefix ids routed there before (weight 3), waiting queue (2), free KV (2); "
           "parallelism.router_weights sets them"},
          {"lora_affinity",
           "multi-LoRA: the replica holding the request's adapter in a GPU slot that used it last, else the one its "
           "adapter's last request went to (least_outstanding, ties to the replica with the fewest adapters, for the "
           "base model, new adapters, or when that replica has over twice the least load)"}};
}

RouterKind parse_router(const std::string& name, const std::string& where) {
  if (name == "round_robin") return RouterKind::round_robin;
  if (name == "least_outstanding") return RouterKind::least_outstanding;
  if (name == "least_kv") return RouterKind::least_kv;
  if (name == "prefix_affinity") return RouterKind::prefix_affinity;
  if (name == "scored") return RouterKind::scored;
  if (name == "lora_affinity") return RouterKind::lora_affinity;
  std::vector<std::string> names;
  for (const auto& [n, _] : router_registry()) names.push_back(n);
  throw Error(fmt::format("{}: unknown router '{}'{} (valid: {})", where, name, did_you_mean(name, names), join(names)));
}

void Router::track(const std::vector<std::unique_ptr<Engine>>& replicas) {
  const std::size_t n = replicas.size();
  // (scored reads every replica at each pick: no trees.)
  tracked_ = n > 1 && kind_ != RouterKind::round_robin && kind_ != RouterKind::scored;
  if (!tracked_) return;
  if (kind_ == RouterKind::least_kv) {
    kv_.resize(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) kv_.set(i, replicas[i]->kv_load());
  } else {
    outstanding_.resize(n, 0);
    for (std::size_t i = 0; i < n; ++i) outstanding_.set(i, replicas[i]->outstanding());
  }
}

void Router::set_available(int i, bool available, const ReplicaLoad& load) {
  const auto k = static_cast<std::size_t>(i);
  if (unavailable_.empty()) unavailable_.assign(tracked_ ? outstanding_.size() + kv_.size() : k + 1, 0);
  if (unavailable_.size() <= k) unavailable_.resize(k + 1, 0);
  unavailable_[k] = available ? 0 : 1;
  if (!tracked_) return;
  // An unavailable replica's load reads as the largest: the trees never pick it.
  if (kind_ == RouterKind::least_kv) kv_.set(k, available ? load.kv_load : std::numeric_limits<double>::max());
  else outstanding_.set(k, available ? load.outstanding : std::numeric_limits<std::int64_t>::max());
}

int Router::least_outstanding(const std::vector<std::unique_ptr<Engine>>& replicas) const {
  if (tracked_) return static_cast<int>(outstanding_.best());
  std::size_t best = replicas.size();
  for (std::size_t i = 0; i < replicas.size(); ++i)
    if (available(i) && (best == replicas.size() || replicas[i]->outstanding() < replicas[best]->outstanding()))
      best = i;
  return best == replicas.size() ? 0 : static_cast<int>(best);
}

int Router::pick_affinity(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r) {
  const int least = least_outstanding(replicas);
  if (r.block_hashes.empty()) return least;
  const std::uint64_t key = r.block_hashes.front();
  int chosen = least;
  if (std::int32_t* last = affinity_.find_handle(key)) {
    const std::int64_t min_load = std::max<std::int64_t>(1, outstanding(replicas, least));
    if (available(static_cast<std::size_t>(*last)) && outstanding(replicas, *last) <= 2 * min_load) chosen = *last;
    *last = chosen;
  } else if (affinity_order_.size() < kAffinityEntries) {
    affinity_.insert(key, chosen);
    affinity_order_.push_back(key);
  } else {  // full: the oldest id is forgotten, the new one takes its place in the ring
    affinity_.erase(affinity_order_[affinity_next_]);
    affinity_.insert(key, chosen);
    affinity_order_[affinity_next_] = key;
    affinity_next_ = (affinity_next_ + 1) % kAffinityEntries;
  }
  return chosen;
}

int Router::pick_lora(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r) {
  int least = least_outstanding(replicas);
  const std::int32_t a = lora_ ? lora_->adapter(r.id, r.session) : LoraAssignment::kBase;
  if (a < 0) return least;
  // Among the least loaded, the replica fewest adapters were sent to (lowest index on a tie).
  if (lora_adapters_on_.size() != replicas.size()) lora_adapters_on_.assign(replicas.size(), 0);
  const std::int64_t min_load = outstanding(replicas, least);
  for (std::size_t i = 0; i < replicas.size(); ++i)
    if (available(i) && outstanding(replicas, static_cast<int>(i)) == min_load &&
        lora_adapters_on_[i] < lora_adapters_on_[static_cast<std::size_t>(least)])
      least = static_cast<int>(i);
  // The available replica that used the adapter last among those holding it in a GPU
  // slot (ties: the lowest index), else the one its previous request went to.
  int preferred = -1;
  std::int64_t latest = -1;
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    if (!available(i)) continue;
    const std::int64_t t = replicas[i]->lora_last_use(a);
    if (t > latest) {
      latest = t;
      preferred = static_cast<int>(i);
    }
  }
  int& routed = lora_routed_[static_cast<std::size_t>(a)];
  if (preferred < 0 && routed >= 0 && available(static_cast<std::size_t>(routed))) preferred = routed;
  int chosen = least;
  if (preferred >= 0 && outstanding(replicas, preferred) <= 2 * std::max<std::int64_t>(1, min_load))
    chosen = preferred;
  if (routed != chosen) {
    if (routed >= 0) --lora_adapters_on_[static_cast<std::size_t>(routed)];
    ++lora_adapters_on_[static_cast<std::size_t>(chosen)];
    routed = chosen;
  }
  return chosen;
}

int Router::pick(const std::vector<std::unique_ptr<Engine>>& replicas, const Request& r) {
  const std::size_t n = replicas.size();
  if (n == 1) return 0;
  switch (kind_) {
    case RouterKind::round_robin: {
      // (An autoscaled fleet: the next available one; min_replicas >= 1 keeps one.)
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = next_++ % n;
        if (available(i)) return static_cast<int>(i);
      }
      return 0;
    }
    case RouterKind::least_outstanding: return least_outstanding(replicas);
    case RouterKind::prefix_affinity: return pick_affinity(replicas, r);
    case RouterKind::scored: return pick_scored(replicas, r);
    case RouterKind::lora_affinity: return pick_lora(replicas, r);
    case RouterKind::least_kv: {
      if (tracked_) return static_cast<int>(kv_.best());
      std::size_t best = n;
      for (std::size_t i = 0; i < n; ++i)
        if (available(i) && (best == n || replicas[i]->kv_load() < replicas[best]->kv_load())) best = i;
      return best == n ? 0 : static_cast<int>(best);
    }
  }
  return 0;
}

}  // namespace servesim
