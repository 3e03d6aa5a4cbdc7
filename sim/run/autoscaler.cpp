#include "run/autoscaler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace servesim {

double nearest_rank_quantile(std::vector<double>& values, double q) {
  const std::size_t n = values.size();
  const std::size_t rank = std::min(n, static_cast<std::size_t>(std::ceil(q * static_cast<double>(n) - 1e-9)));
  const auto k = values.begin() + static_cast<std::ptrdiff_t>(rank == 0 ? 0 : rank - 1);
  std::nth_element(values.begin(), k, values.end());
  return *k;
}

Autoscaler::Autoscaler(const AutoscaleSpec& spec, int replicas, int gpus_per_replica, double weight_bytes_per_gpu)
    : Autoscaler(spec, std::vector<ReplicaFootprint>(static_cast<std::size_t>(replicas),
                                                     ReplicaFootprint{gpus_per_replica, weight_bytes_per_gpu, 0})) {}

Autoscaler::Autoscaler(const AutoscaleSpec& spec, std::vector<ReplicaFootprint> replicas)
    : spec_(spec),
      interval_(to_nanos(spec.interval_s)),
      window_(to_nanos(spec.scale_down_window_s)),
      footprint_(std::move(replicas)),
      state_(footprint_.size(), State::off),
      since_(footprint_.size(), 0),
      ready_at_(footprint_.size(), 0) {
  const int n = static_cast<int>(footprint_.size());
  int pools = 0;
  for (const ReplicaFootprint& f : footprint_) {
    startup_s_.push_back(spec.provision_s + (spec.load_bandwidth > 0 ? f.weight_bytes_per_gpu / spec.load_bandwidth : 0.0));
    totals_.max_gpus += f.gpus;
    pools = std::max(pools, f.pool + 1);
    totals_.startup_s_max = std::max(totals_.startup_s_max, startup_s_.back());
    totals_.startup_s_min = startup_s_.size() == 1 ? startup_s_.back() : std::min(totals_.startup_s_min, startup_s_.back());
  }
  totals_.pool_gpu_seconds.assign(static_cast<std::size_t>(pools), 0.0);
  const int initial = spec.initial_replicas > 0 ? spec.initial_replicas : spec.min_replicas;
  for (int r = 0; r < initial && r < n; ++r) state_[static_cast<std::size_t>(r)] = State::serving;
  serving_ = count(State::serving);
  totals_.min_serving = totals_.max_serving = serving_;
  totals_.startup_s = n > 0 ? startup_s_[0] : 0.0;
  totals_.max_replicas = n;
  totals_.gpus_per_replica = n > 0 ? footprint_[0].gpus : 0;
  totals_.serving_changes.emplace_back(0.0, serving_);
}

int Autoscaler::count(State s) const {
  return static_cast<int>(std::count(state_.begin(), state_.end(), s));
}

void Autoscaler::hold(int r, double seconds) {
  const ReplicaFootprint& f = footprint_[static_cast<std::size_t>(r)];
  totals_.replica_seconds += seconds;
  totals_.gpu_seconds += seconds * f.gpus;
  totals_.pool_gpu_seconds[static_cast<std::size_t>(f.pool)] += seconds * f.gpus;
}

void Autoscaler::set_state(int r, State s, Nanos now) {
  const auto i = static_cast<std::size_t>(r);
  const State old = state_[i];
  if (old == s) return;
  // A replica holds its GPUs from its start decision to its stop.
  if (old != State::off) hold(r, to_seconds(now - since_[i]));
  state_[i] = s;
  since_[i] = now;
  const int serving = count(State::serving);
  if (serving != serving_) {
    serving_seconds_ += serving_ * to_seconds(now - last_change_);
    last_change_ = now;
    serving_ = serving;
    totals_.min_serving = std::min(totals_.min_serving, serving);
    totals_.max_serving = std::max(totals_.max_serving, serving);
    if (totals_.serving_changes.size() < kMaxChanges) totals_.serving_changes.emplace_back(to_seconds(now), serving);
  }
}

int Autoscaler::desired(const std::vector<ReplicaSignal>& signals, const FleetSignal& fleet) const {
  std::int64_t waiting = fleet.held, outstanding = fleet.held;
  double kv = 0;
  int serving = 0;
  for (std::size_t r = 0; r < signals.size(); ++r) {
    if (state_[r] != State::serving) continue;
    waiting += signals[r].waiting;
    outstanding += signals[r].outstanding;
    kv += signals[r].kv_load;
    ++serving;
  }
  if (serving == 0) return 0;
  if (spec_.planner == AutoscaleSpec::Planner::sla) return fleet.planned >= 0 ? fleet.planned : serving;
  int want = -1;  // no signal asks for a change
  auto consider = [&](double metric, double target) {
    if (target <= 0) return;
    const double ratio = metric / target;
    if (std::abs(ratio - 1.0) <= spec_.tolerance) {
      want = std::max(want, serving);
      return;
    }
    // ceil, less a hair so that an exact multiple is not rounded up by floating error.
    want = std::max(want, static_cast<int>(std::ceil(serving * ratio - 1e-9)));
  };
  consider(static_cast<double>(waiting) / serving, spec_.target_queue);
  consider(kv / serving, spec_.target_kv);
  consider(static_cast<double>(outstanding) / serving, spec_.target_concurrency);
  if (fleet.ttft_s >= 0) consider(fleet.ttft_s, spec_.target_ttft_s);
  return want < 0 ? serving : want;
}

Autoscaler::Decision Autoscaler::decide(Nanos now, const std::vector<ReplicaSignal>& signals,
                                        const FleetSignal& fleet_signal) {
  Decision d;
  if (spec_.hold_while_changing && (count(State::starting) > 0 || count(State::draining) > 0)) return d;
  const int replicas = static_cast<int>(state_.size());
  const int want = std::clamp(desired(signals, fleet_signal), spec_.min_replicas, replicas);
  const int step = spec_.max_step > 0 ? spec_.max_step : replicas;
  // The fleet as it will be: serving plus starting (draining replicas are leaving).
  const int fleet = count(State::serving) + count(State::starting);
  recent_.emplace_back(now, want);
  while (!recent_.empty() && recent_.front().first < now - window_) recent_.pop_front();
  if (want > fleet) {
    for (int r = 0; r < replicas && static_cast<int>(d.start.size()) < std::min(want - fleet, step); ++r)
      if (state_[static_cast<std::size_t>(r)] == State::off) {
        d.start.push_back(r);
        set_state(r, State::starting, now);
        ready_at_[static_cast<std::size_t>(r)] = now + to_nanos(startup_s_[static_cast<std::size_t>(r)]);
        ++totals_.scale_ups;
      }
    return d;
  }
  int keep = 0;
  for (const auto& [t, w] : recent_) keep = std::max(keep, w);
  if (keep >= fleet) return d;
  // Starting replicas are cancelled first (they hold no requests), then the serving
  // ones with the fewest outstanding requests (ties: the highest index).
  int shed = std::min(fleet - keep, step);
  for (int r = replicas - 1; r >= 0 && shed > 0; --r)
    if (state_[static_cast<std::size_t>(r)] == State::starting) {
      set_state(r, State::off, now);
      ++totals_.scale_downs;
      --shed;
    }
  std::vector<int> serving;
  for (int r = 0; r < replicas; ++r)
    if (state_[static_cast<std::size_t>(r)] == State::serving) serving.push_back(r);
  std::stable_sort(serving.begin(), serving.end(), [&](int a, int b) {
    const int pa = footprint_[static_cast<std::size_t>(a)].pool, pb = footprint_[static_cast<std::size_t>(b)].pool;
    if (pa != pb) return pa > pb;  // the last pool drains first
    const auto oa = signals[static_cast<std::size_t>(a)].outstanding, ob = signals[static_cast<std::size_t>(b)].outstanding;
    return oa != ob ? oa < ob : a > b;
  });
  for (int r : serving) {
    if (shed == 0) break;
    d.drain.push_back(r);
    set_state(r, State::draining, now);
    ++totals_.scale_downs;
    --shed;
  }
  return d;
}

void Autoscaler::ready(int r, Nanos now) {
  if (state_[static_cast<std::size_t>(r)] == State::starting && ready_at_[static_cast<std::size_t>(r)] == now)
    set_state(r, State::serving, now);
}

void Autoscaler::stopped(int r, Nanos now) {
  if (state_[static_cast<std::size_t>(r)] == State::draining) set_state(r, State::off, now);
}

AutoscaleReport Autoscaler::finish(Nanos end) {
  for (std::size_t r = 0; r < state_.size(); ++r)
    if (state_[r] != State::off) hold(static_cast<int>(r), to_seconds(end - since_[r]));
  serving_seconds_ += serving_ * to_seconds(end - last_change_);
  totals_.mean_serving = end > 0 ? serving_seconds_ / to_seconds(end) : serving_;
  totals_.span_s = to_seconds(end);
  return totals_;
}

}  // namespace servesim
