#include "workload/synthetic_source.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace servesim {

SyntheticSource::SyntheticSource(const WorkloadSpec& spec)
    : spec_(spec),
      arrivals_rng_(spec.seed, "arrivals"),
      input_rng_(spec.seed, "input_tokens"),
      output_rng_(spec.seed, "output_tokens") {
  if (spec_.duration_s) duration_end_ = to_nanos(*spec_.duration_s);
  if (spec_.arrival.kind == ArrivalKind::closed_loop) {
    think_ = to_nanos(spec_.arrival.think_time_s);
    users_alive_ = spec_.arrival.users;
    for (std::int64_t u = 0; u < spec_.arrival.users; ++u) ready_.emplace(Nanos{0}, static_cast<std::int32_t>(u));
  } else {
    open_.emplace(spec_.arrival);
    lookahead_ = pull_open_arrival();
  }
}

std::optional<Nanos> SyntheticSource::pull_open_arrival() {
  if (count_reached()) return std::nullopt;  // do not draw past the last request
  const std::optional<Nanos> t = open_->next(arrivals_rng_);
  if (!t || !within_duration(*t)) return std::nullopt;
  return t;
}

Request SyntheticSource::make_request(Nanos arrival, std::int32_t session) {
  Request r;
  r.id = issued_++;
  r.arrival = arrival;
  r.input_tokens = sample_length(spec_.input_tokens, input_rng_);
  r.output_tokens = sample_length(spec_.output_tokens, output_rng_);
  r.session = session;
  return r;
}

std::optional<Request> SyntheticSource::next() {
  if (exhausted()) return std::nullopt;
  if (open_) {
    const Nanos t = *lookahead_;
    Request r = make_request(t, -1);
    lookahead_ = pull_open_arrival();
    return r;
  }
  if (ready_.empty()) return std::nullopt;  // every live user has a request outstanding
  const auto [t, user] = ready_.top();
  ready_.pop();
  return make_request(t, user);
}

void SyntheticSource::on_complete(const Request& r, Nanos completion_time) {
  if (open_) return;
  if (r.session < 0 || r.session >= spec_.arrival.users)
    throw std::logic_error("SyntheticSource::on_complete: request is not from this closed-loop source");
  const Nanos t = completion_time + think_;
  if (count_reached() || !within_duration(t)) {
    --users_alive_;  // this user will never send again
    return;
  }
  ready_.emplace(t, r.session);
}

bool SyntheticSource::exhausted() const {
  if (count_reached()) return true;
  return open_ ? !lookahead_.has_value() : users_alive_ == 0;
}

std::int64_t SyntheticSource::expected_total() const {
  // A duration cap or a duration stage makes the count depend on the draws.
  if (spec_.duration_s) return -1;
  switch (spec_.arrival.kind) {
    case ArrivalKind::closed_loop:
    case ArrivalKind::all_at_once: return spec_.requests;
    case ArrivalKind::multi_stage: {
      const std::int64_t own = arrival_count(spec_.arrival);
      if (own < 0) return -1;
      return spec_.requests < 0 ? own : std::min(own, spec_.requests);
    }
    default: return spec_.requests;  // an endless renewal process, cut by the count
  }
}

std::unique_ptr<RequestSource> make_synthetic_source(const WorkloadSpec& spec) {
  return std::make_unique<SyntheticSource>(spec);
}

}  // namespace servesim
