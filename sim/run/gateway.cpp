#include "run/gateway.h"

#include <algorithm>

#include "util/error.h"

namespace servesim {

Gateway::Gateway(const ClassAssignment& classes, std::optional<GatewaySpec> flow)
    : classes_(classes), flow_(flow) {
  const auto n = static_cast<std::size_t>(classes.size());
  buckets_.resize(n);
  for (std::size_t c = 0; c < n; ++c) buckets_[c].tokens = classes.specs()[c].burst;  // a full bucket at the start
  held_by_class_.assign(n, 0);
  counts_.resize(n);
}

Gateway::Decision Gateway::admit(const Request& r, Nanos now, bool saturated) {
  const int c = classes_.of(r.id, r.session);
  const RequestClassSpec& spec = classes_.spec(c);
  if (spec.rate_limit > 0) {
    // The bucket refills continuously at rate_limit up to burst; a request takes one token.
    Bucket& b = buckets_[static_cast<std::size_t>(c)];
    b.tokens = std::min(spec.burst, b.tokens + spec.rate_limit * to_seconds(now - b.at));
    b.at = now;
    if (b.tokens < 1.0) return {Verdict::fail, FailureReason::rate_limited};
    b.tokens -= 1.0;
  }
  if (!flow_ || !saturated) return {};
  if (spec.priority < 0) return {Verdict::fail, FailureReason::shed};
  if (spec.max_queue >= 0 && held_by_class_[static_cast<std::size_t>(c)] >= spec.max_queue)
    return {Verdict::fail, FailureReason::gateway_queue_full};
  return {Verdict::hold, FailureReason::none};
}

void Gateway::hold(Request&& r, Nanos now) {
  const int c = classes_.of(r.id, r.session);
  const auto i = static_cast<std::size_t>(c);
  GatewayClassReport& k = counts_[i];
  ++k.held;
  k.held_peak = std::max(k.held_peak, ++held_by_class_[i]);
  ++held_;
  if (patience_) {
    deadlines_.emplace(patience_->deadline(r), r.id);
    held_ids_.insert(r.id);
  }
  bands_[classes_.priority(c)].emplace_back(std::move(r), now);
}

void Gateway::count_release(const Request& r, Nanos since, Nanos now) {
  --held_;
  const auto i = static_cast<std::size_t>(classes_.of(r.id, r.session));
  --held_by_class_[i];
  const double waited_ms = to_seconds(now - since) * 1e3;
  GatewayClassReport& k = counts_[i];
  k.held_wait_max_ms = std::max(k.held_wait_max_ms, waited_ms);
  k.held_wait_total_ms += waited_ms;
  if (patience_) held_ids_.erase(r.id);
}

void Gateway::drop_stale_deadlines() {
  while (!deadlines_.empty() && !held_ids_.count(deadlines_.top().second)) deadlines_.pop();
}

Nanos Gateway::next_deadline() {
  drop_stale_deadlines();
  return deadlines_.empty() ? std::numeric_limits<Nanos>::max() : deadlines_.top().first;
}

std::optional<Nanos> Gateway::deadline_event(Nanos now) {
  constexpr Nanos kNone = std::numeric_limits<Nanos>::max();
  if (!patience_) return std::nullopt;
  const Nanos due = next_deadline();
  if (due == kNone) return std::nullopt;
  const Nanos at = std::max(due, now);
  if (event_at_ != kNone && event_at_ >= now && event_at_ <= at) return std::nullopt;  // one comes by then
  event_at_ = at;
  return at;
}

void Gateway::give_up_due(Nanos now, std::vector<Request>& gone) {
  if (event_at_ == now) event_at_ = std::numeric_limits<Nanos>::max();
  for (drop_stale_deadlines(); !deadlines_.empty() && deadlines_.top().first <= now; drop_stale_deadlines()) {
    const auto [due, id] = deadlines_.top();
    deadlines_.pop();
    // Its band: the one of its class's priority. Held counts are bounded (max_queue or
    // the load), so a scan of one band per user who gives up is cheap enough.
    for (auto band = bands_.begin(); band != bands_.end(); ++band) {
      auto& q = band->second;
      const auto it = std::find_if(q.begin(), q.end(), [id = id](const auto& held) { return held.first.id == id; });
      if (it == q.end()) continue;
      Request r = std::move(it->first);
      const Nanos since = it->second;
      q.erase(it);
      if (q.empty()) bands_.erase(band);
      count_release(r, since, due);
      gone.push_back(std::move(r));
      break;
    }
  }
}

Request Gateway::release(Nanos now) {
  if (held_ == 0) throw Error("internal: the gateway released a request it does not hold");
  auto band = bands_.begin();
  auto [r, since] = std::move(band->second.front());
  band->second.pop_front();
  if (band->second.empty()) bands_.erase(band);
  count_release(r, since, now);
  return std::move(r);
}

}  // namespace servesim
