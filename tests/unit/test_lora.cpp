// Multi-LoRA serving (workload.lora, engine.lora): adapter bytes from the model's
// shapes, each request's adapter as a pure function of (seed, id), the engine's GPU
// slots and host cache, a cold load in the first token's time, max_loras in every
// batch, the step-cost delta of k adapters, the lora_affinity router, determinism.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "config/catalog_reader.h"
#include "cost/lora_shape.h"
#include "deploy/deployment.h"
#include "engine/lora_slots.h"
#include "engine/router.h"
#include "engine/step_cost_cache.h"
#include "metrics/summary_json.h"
#include "run/simulation.h"
#include "lora_test_helpers.h"
#include "test_sim_helpers.h"
#include "workload/lora_adapters.h"

using namespace servesim;
using namespace servesim::testing;

namespace {

LoraWorkloadSpec lora_spec(std::int64_t adapters, LoraPopularity p = LoraPopularity::uniform, double share = 1.0) {
  LoraWorkloadSpec l;
  l.adapters = adapters;
  l.rank = 16;
  l.popularity = p;
  l.share = share;
  return l;
}

constexpr double kNsInMs = 1e-6;  // 1 ns in milliseconds

// Llama-3.1-8B (models/llama-3.1-8b.yaml): hidden 4096, 32 query heads, 8 KV heads of
// 128, MLP 14336, 32 layers.
constexpr double kLlama8bAdapterBytesR16 = 83'886'080;  // 16 x 81,920 x 32 x 2 B = 80 MiB

}  // namespace

TEST_CASE("adapter bytes of Llama-3.1-8B at rank 16: r x (7h + 2Hd + 2Kd + 3f) x layers x 2 B", "[lora]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  const CostModel cost = make_cost_model(sc);
  const LoraGeometry& g = cost.lora_geometry();
  REQUIRE(g.supported());
  // Per layer, the seven linears' d_in + d_out: 7 x 4096 + 2 x 32 x 128 + 2 x 8 x 128 + 3 x 14336
  // = 28,672 + 8,192 + 2,048 + 43,008 = 81,920.
  CHECK(g.a_in_full + g.b_out_full == 81920.0);
  CHECK(lora_adapter_bytes(g, 16) == kLlama8bAdapterBytesR16);
  // tp = 1: each GPU holds the whole adapter.
  CHECK(lora_adapter_bytes_per_gpu(g, 16) == kLlama8bAdapterBytesR16);

  SECTION("tp = 2: column-parallel B's and row-parallel A's halve, the rest is whole on each GPU") {
    const Scenario sc2 = scenario_from("{kind: vllm}", "", "llama-3.1-8b", "{tp: 2}");
    const CostModel c2 = make_cost_model(sc2);
    const LoraGeometry& g2 = c2.lora_geometry();
    // A: q, k, v, gate, up whole (5 x 4096 = 20,480), o's 16 x 128 = 2,048 and down's 7,168 rows: 29,696.
    CHECK(g2.a_in == 29696.0);
    // B: q, k, v outputs (16 + 2 x 4) x 128 = 3,072, gate/up 2 x 7,168 = 14,336, o and down whole
    // (2 x 4096 = 8,192): 25,600.
    CHECK(g2.b_out == 25600.0);
    CHECK(lora_adapter_bytes_per_gpu(g2, 16) == 16.0 * (29696.0 + 25600.0) * 32 * 2);  // 56,623,104 B
    CHECK(lora_adapter_bytes(g2, 16) == kLlama8bAdapterBytesR16);  // the adapter on disk is the same
  }
  SECTION("the slots come out of the KV cache: max_loras x one adapter at max_lora_rank") {
    const Scenario with = scenario_from("{kind: vllm, lora: {max_loras: 8, max_lora_rank: 32}}");
    const MemoryPlan a = plan_setup_memory(sc, cost);
    const MemoryPlan b = plan_setup_memory(with, make_cost_model(with));
    // 8 slots x (32 x 81,920 x 32 x 2 B) = 8 x 167,772,160 B.
    CHECK(b.lora_slots == 8.0 * 2.0 * kLlama8bAdapterBytesR16);
    CHECK(a.kv_bytes - b.kv_bytes == Approx(8.0 * 2.0 * kLlama8bAdapterBytesR16).epsilon(1e-12));
    CHECK(b.kv_blocks < a.kv_blocks);
  }
  SECTION("a mixture of experts is refused, with the reason") {
    CHECK_FALSE(lora_unsupported_reason(load_model("qwen3-30b-a3b")).empty());
  }
  SECTION("value heads narrower than the query/key heads are refused (the adapters' widths assume them equal)") {
    ModelSpec m = load_model("llama-3.1-8b");
    m.v_head_dim = 64;  // beside head_dim 128
    CHECK(lora_unsupported_reason(m) == "llama-3.1-8b has value heads of 64 beside query/key heads of 128");
    m.v_head_dim = 128;  // as wide: nothing changes
    CHECK(lora_unsupported_reason(m).empty());
  }
  SECTION("a looped model and MLP layers of differing widths are refused (the adapters' counts assume one pass "
          "through layers of one shape)") {
    ModelSpec m = load_model("llama-3.1-8b");
    m.layer_passes = 4;  // 32 layers run as 4 passes over 8 stored ones
    CHECK(lora_unsupported_reason(m) ==
          "llama-3.1-8b is a looped model (its 8 layers run 4 times a token; adapters on weights shared by the passes "
          "are not modelled)");
    m.layer_passes = 1;
    m.mlp_widths = {MlpWidthGroup{28672, 16, false}, MlpWidthGroup{14336, 16, false}};
    CHECK(lora_unsupported_reason(m) == "llama-3.1-8b has MLP layers of differing widths");
  }
}

TEST_CASE("each request's adapter is a pure function of (seed, id)", "[lora][rng]") {
  const LoraAssignment a(lora_spec(200, LoraPopularity::zipf), 1);
  const LoraAssignment b(lora_spec(200, LoraPopularity::zipf), 1);
  const LoraAssignment other(lora_spec(200, LoraPopularity::zipf), 2);
  int differ = 0;
  for (std::int64_t id = 0; id < 1000; ++id) {
    CHECK(a.adapter(id) == b.adapter(id));
    CHECK(a.adapter(id) == a.adapter(id));  // asked again, in any order: the same
    differ += a.adapter(id) != other.adapter(id);
  }
  CHECK(differ > 500);  // another seed, other adapters
  // Pinned first draws (seed 1, 200 adapters, Zipf s = 1): a regression guard on the
  // counter-based stream, not a closed form.
  const std::vector<std::int32_t> first{a.adapter(0), a.adapter(1), a.adapter(2), a.adapter(3), a.adapter(4)};
  CHECK(first == std::vector<std::int32_t>{1, 27, 6, 0, 126});

  SECTION("the turns of a session share its adapter (drawn from the session's number, not the turn's id)") {
    int differ = 0;
    for (std::int32_t session = 0; session < 200; ++session) {
      const std::int32_t first_turn = a.adapter(1000 + session, session);
      for (std::int64_t turn_id : {5000 + session, 9000 + 3 * session}) CHECK(a.adapter(turn_id, session) == first_turn);
      differ += a.adapter(session, session) != a.adapter(session);  // a session key is not a request id
    }
    CHECK(differ > 100);
  }
  SECTION("share: the base model for a fraction 1 - share of the requests") {
    const LoraAssignment none(lora_spec(10, LoraPopularity::uniform, 0.0), 1);
    const LoraAssignment all(lora_spec(10, LoraPopularity::uniform, 1.0), 1);
    const LoraAssignment half(lora_spec(10, LoraPopularity::uniform, 0.5), 1);
    const int n = 200000;
    int base = 0;
    for (std::int64_t id = 0; id < n; ++id) {
      CHECK(none.adapter(id) == LoraAssignment::kBase);
      const std::int32_t x = all.adapter(id);
      CHECK((x >= 0 && x < 10));
      base += half.adapter(id) == LoraAssignment::kBase;
    }
    // Binomial(200000, 0.5): sd = sqrt(n p q) = 223.6; 4 sd = 894.
    CHECK(std::abs(base - n / 2) < 894);
  }
  SECTION("zipf: adapter i has probability (1/(i+1)^s) / H; the draws follow it") {
    const LoraAssignment z(lora_spec(200, LoraPopularity::zipf), 7);
    double h = 0;
    for (int i = 1; i <= 200; ++i) h += 1.0 / i;  // H_200 = 5.878
    CHECK(z.probability(0) == Approx(1.0 / h).epsilon(1e-12));
    CHECK(z.probability(9) == Approx(0.1 / h).epsilon(1e-12));
    const int n = 400000;
    std::vector<int> count(200, 0);
    for (std::int64_t id = 0; id < n; ++id) ++count[static_cast<std::size_t>(z.adapter(id))];
    for (int i : {0, 1, 9, 199}) {
      const double p = z.probability(i), sd = std::sqrt(n * p * (1 - p));
      CHECK(std::abs(count[static_cast<std::size_t>(i)] - n * p) < 4 * sd);
    }
  }
}

TEST_CASE("GPU slots and host cache: LRU among idle adapters, loads from host and disk", "[lora][engine]") {
  // max_loras 2, max_cpu_loras 3, 5 adapters; a disk read costs 10 s, a host -> GPU copy 1 s
  // (round numbers: the test is about which loads happen).
  LoraEngineSpec spec;
  spec.enabled = true;
  spec.max_loras = 2;
  spec.max_cpu_loras = 3;
  const LoraAssignment assign(lora_spec(5), 1);
  LoraSlots s(spec, &assign, 1.0, 10.0);
  CHECK(s.acquire(0) == 11.0);  // cold: disk, then host -> GPU
  CHECK(s.acquire(0) == 0.0);   // a second request of adapter 0: in its slot
  CHECK(s.acquire(1) == 11.0);
  CHECK(s.active() == 2);
  CHECK_FALSE(s.fits(2));  // two adapters run: a third must wait
  CHECK(s.fits(0));
  CHECK(s.fits(LoraAssignment::kBase));
  s.release(0);
  s.release(0);
  CHECK(s.fits(2));
  CHECK(s.acquire(2) == 11.0);  // takes adapter 0's slot (idle), host cache now {0, 1, 2}
  CHECK_FALSE(s.on_gpu(0));
  CHECK(s.in_host(0));
  s.release(1);
  CHECK(s.acquire(0) == 1.0);  // from host memory only; takes adapter 1's slot (the idle one)
  CHECK_FALSE(s.on_gpu(1));
  CHECK_FALSE(s.fits(3));
  s.release(2);
  // Host cache full {0, 1, 2}: adapter 1 (idle the longest; 0 runs) is evicted; GPU: 2's slot.
  CHECK(s.acquire(3) == 11.0);
  CHECK_FALSE(s.in_host(1));
  CHECK(s.in_host(2));
  CHECK(s.on_gpu(3));
  CHECK(s.counts.disk_loads == 4);  // 0, 1, 2, 3
  CHECK(s.counts.gpu_loads == 5);   // and 0 again
  CHECK(s.counts.disk_load_s == 40.0);
  CHECK(s.counts.gpu_load_s == 5.0);
}

TEST_CASE("a cold adapter's load is in TTFT exactly: bytes / disk bandwidth + bytes / host link + its latency",
          "[lora][sim][closed_form]") {
  // Requests far apart (each alone), max_loras 1, max_cpu_loras 2, two adapters drawn
  // uniformly. A request's first step waits for: nothing when its adapter is the one in
  // the slot; the host -> GPU copy when the host cache holds it; disk read + copy otherwise.
  Scenario sc = scenario_from("{kind: vllm, lora: {max_loras: 1, max_cpu_loras: 2}}");
  sc.workload.lora = lora_spec(2);
  const CostModel cost = make_cost_model(sc);
  const Link& host = cost.gpu().host;
  const double bytes = kLlama8bAdapterBytesR16;  // tp 1: the GPU's shard is the whole adapter
  const double copy_s = bytes / host.bandwidth + host.latency;  // 83.9 MB / 64 GB/s + 10 us = 1.32 ms
  const double disk_s = bytes / 6.5e9;                           // / 6.5 GB/s = 12.9 ms
  const std::int64_t in = 512, out = 4;
  std::vector<Request> rs;
  for (int i = 0; i < 8; ++i) rs.push_back(make_request(10.0 * i, in, out));
  VectorSource src(rs);
  const RunWithCsv run = run_with_csv(sc, &src);
  REQUIRE(run.result.summary.completed == 8);
  const LoraAssignment assign(*sc.workload.lora, sc.workload.seed);
  // The prefill step of the prompt with every token on one adapter (rank 16).
  BatchSummary b = batch_of(1, SeqWork{in, 0, true});
  b.lora = LoraLoad{in, 1, 16};
  const double step_s = step_seconds(cost, sc.engine, b);
  std::int32_t in_slot = -1;
  std::set<std::int32_t> seen;
  int cold = 0, warm = 0, hot = 0;
  for (const RequestResult& r : run.results) {
    const std::int32_t a = assign.adapter(r.id);
    double load = 0;
    if (a != in_slot) load = seen.count(a) ? copy_s : disk_s + copy_s;
    (a == in_slot ? hot : seen.count(a) ? warm : cold) += 1;
    CHECK(r.ttft_ms == Approx(static_cast<double>(to_nanos(step_s + load)) * kNsInMs).margin(kNsInMs));
    in_slot = a;
    seen.insert(a);
  }
  CHECK(cold == 2);  // both adapters' first requests
  CHECK(warm + hot == 6);
  CHECK(warm > 0);   // the pinned draws alternate at least once (else the copy path is untested)
  const LoraReport& l = *run.result.summary.lora;
  CHECK(l.disk_loads == 2);
  CHECK(l.gpu_loads == 2 + warm);
  CHECK(l.gpu_load_s == Approx(copy_s * (2 + warm)).epsilon(1e-12));
  CHECK(l.disk_load_s == Approx(disk_s * 2).epsilon(1e-12));
  CHECK(l.delayed_requests == 0);
}

TEST_CASE("max_loras: running requests never use more distinct adapters, the others wait and are skipped past",
          "[lora][sim]") {
  for (int max_loras : {1, 2, 3}) {
    CAPTURE(max_loras);
    Scenario sc = scenario_from(fmt::format("{{kind: vllm, lora: {{max_loras: {}, max_cpu_loras: 8}}}}", max_loras));
    sc.workload.lora = lora_spec(5);
    // 60 requests at once: every adapter waits behind the running ones.
    std::vector<Request> rs;
    for (int i = 0; i < 60; ++i) rs.push_back(make_request(0.0, 300, 40));
    VectorSource src(rs);
    const RunWithCsv run = run_with_csv(sc, &src);
    REQUIRE(run.result.summary.completed == 60);
    const LoraAssignment assign(*sc.workload.lora, sc.workload.seed);
    // A request runs from its first scheduling (arrival + queue) to its finish. At every
    // start, the distinct adapters of the requests running then (its own included) are at
    // most max_loras.
    struct Span {
      double start, finish;
      std::int32_t adapter;
    };
    std::vector<Span> spans;
    for (const RequestResult& r : run.results)
      spans.push_back({r.arrival_s + r.queue_ms * 1e-3, r.arrival_s + r.e2e_ms * 1e-3, assign.adapter(r.id)});
    std::size_t most = 0;
    for (const Span& s : spans) {
      std::set<std::int32_t> running;
      for (const Span& o : spans)
        if (o.start <= s.start && s.start < o.finish) running.insert(o.adapter);
      most = std::max(most, running.size());
    }
    CHECK(most == static_cast<std::size_t>(max_loras));  // reached, never exceeded
    const LoraReport& l = *run.result.summary.lora;
    CHECK(l.delayed_requests > 0);
    CHECK(l.skips >= l.delayed_requests);
    // Skipping, not blocking: some request started before an earlier one (by id: they all
    // arrived at t = 0 in id order) that waited for a slot.
    bool overtaken = false;
    for (std::size_t k = 0; k < run.results.size(); ++k)
      for (std::size_t j = 0; j < run.results.size(); ++j)
        if (run.results[j].id < run.results[k].id && spans[j].start > spans[k].start) overtaken = true;
    CHECK(overtaken);
  }
}

TEST_CASE("a step's LoRA cost: k distinct adapters add the shrink and expand GEMMs' roofline time",
          "[lora][cost][closed_form]") {
  const Scenario sc = scenario_from("{kind: vllm}");
  const CostModel cost = make_cost_model(sc);
  const Efficiency& e = cost.gpu().efficiency;
  const double peak = cost.peak_flops(), bw = cost.gpu().memory_bandwidth;
  const double h = 4096, d = 128, f = 14336, L = 32, a = 2, w = 2, r = 16;
  // Per layer: A's input widths 3h + Hd + 2h + f, B's output widths (H + 2K)d + h + 2f + h.
  const double a_in = 3 * h + 32 * d + 2 * h + f, b_out = (32 + 2 * 8) * d + h + 2 * f + h;
  const double slices = 7, modules = 4;
  // One GEMM op (cost/step_cost.cpp finish_op): max(compute, memory), the exposed part of
  // the other, and its launches.
  auto gemm_s = [&](double flops, double bytes, double m, double launches) {
    const double fill = m / (m + e.gemm_tokens_half);
    const double c = flops / (peak * e.gemm_compute * fill), mem = bytes / (bw * e.gemm_memory);
    return std::max(c, mem) + (1 - e.gemm_overlap) * std::min(c, mem) + launches * e.kernel_overhead;
  };
  const BatchSummary plain = batch_of(64, SeqWork{1, 1000, true});  // 64 decoders
  for (int k : {1, 4, 8}) {
    CAPTURE(k);
    const double T = 64;
    BatchSummary b = plain;
    b.lora = LoraLoad{64, k, 16};
    // shrink: 2 T r a_in FLOPs; k adapters' A (k r a_in x 2 B), x (T a_in x 2 B) and the fp32
    // buffer (T x 7 x r x 4 B); zero + shrink per module.
    const double shrink = gemm_s(L * 2 * T * r * a_in, L * (k * r * a_in * w + T * a_in * a + T * slices * r * 4), T / k,
                                 L * 2 * modules);
    // expand: 2 T r b_out FLOPs; k adapters' B, the buffer read and y read and written.
    const double expand = gemm_s(L * 2 * T * r * b_out, L * (k * r * b_out * w + T * slices * r * 4 + 2 * T * b_out * a),
                                 T / k, L * modules);
    const double delta = cost.totals(b).time - cost.totals(plain).time;
    CHECK(delta == Approx(shrink + expand).epsilon(1e-9));
    // The memoised path (the engine's) gives the same step to the bit.
    StepCostCache cache(cost);
    CHECK(cache.totals(b).time == cost.totals(b).time);
    CHECK(cache.decode_time(64, static_cast<std::int64_t>(plain.decode_kv_tokens), 0, b.lora) == cost.totals(b).time);
    CHECK(cost.breakdown(b).time == cost.totals(b).time);
  }
  // Monotone in k: more distinct adapters read more weights.
  BatchSummary b1 = plain, b8 = plain;
  b1.lora = LoraLoad{64, 1, 16};
  b8.lora = LoraLoad{64, 8, 16};
  CHECK(cost.totals(b8).time > cost.totals(b1).time);
  // No adapter tokens: nothing added (a running adapter whose requests computed nothing).
  BatchSummary none = plain;
  none.lora = LoraLoad{0, 3, 16};
  CHECK(cost.totals(none).time == cost.totals(plain).time);
}

namespace {

// A replica the router can ask: its outstanding requests and the adapters it holds.
class FakeReplica final : public Engine {
 public:
  FakeReplica(std::int64_t outstanding, std::map<std::int32_t, std::int64_t> last_use)
      : outstanding_(outstanding), last_use_(std::move(last_use)) {}
  bool enqueue(Request, Nanos) override { return true; }
  bool has_work() const override { return false; }
  bool can_start(Nanos) const override { return false; }
  Nanos start_step(Nanos now, Nanos) override { return now; }
  void finish_step(Nanos, std::vector<Request>&) override {}
  std::int64_t outstanding() const override { return outstanding_; }
  std::int64_t queued() const override { return 0; }
  std::int64_t queued_bytes() const override { return 0; }
  void abort_queued(Nanos, FailureReason, const std::function<void(const Request&)>&) override {}
  double kv_load() const override { return 0; }
  std::int64_t kv_blocks_total() const override { return 1; }
  std::int64_t lora_last_use(std::int32_t a) const override {
    const auto it = last_use_.find(a);
    return it == last_use_.end() ? -1 : it->second;
  }

 private:
  std::int64_t outstanding_;
  std::map<std::int32_t, std::int64_t> last_use_;
};

Request with_id(std::int64_t id) {
  Request r;
  r.id = id;
  return r;
}

// The first request id (from `from`) whose adapter is `a` (or the base model: kBase).
std::int64_t id_of(const LoraAssignment& l, std::int32_t a, std::int64_t from = 0) {
  for (std::int64_t id = from;; ++id)
    if (l.adapter(id) == a) return id;
}

}  // namespace

TEST_CASE("lora_affinity: the replica holding the adapter that used it last, else where it was sent, else the "
          "least loaded",
          "[lora][router]") {
  const LoraAssignment lora(lora_spec(4, LoraPopularity::uniform, 0.5), 3);
  std::vector<std::unique_ptr<Engine>> replicas;
  // Replica 0: idle, holds nothing. 1: holds adapter 0 (used at t = 5) and 1 (t = 9).
  // 2: holds adapter 1 (used at t = 7) and adapter 2 (t = 1), 3 requests outstanding.
  replicas.push_back(std::make_unique<FakeReplica>(0, std::map<std::int32_t, std::int64_t>{}));
  replicas.push_back(std::make_unique<FakeReplica>(1, std::map<std::int32_t, std::int64_t>{{0, 5}, {1, 9}}));
  replicas.push_back(std::make_unique<FakeReplica>(3, std::map<std::int32_t, std::int64_t>{{1, 7}, {2, 1}}));
  Router router(RouterKind::lora_affinity);
  router.set_lora(&lora);
  // Adapter 0: only replica 1 holds it (load 1 <= 2 x max(1, 0)).
  CHECK(router.pick(replicas, with_id(id_of(lora, 0))) == 1);
  // Adapter 1: replicas 1 and 2 hold it; 1 used it last.
  CHECK(router.pick(replicas, with_id(id_of(lora, 1))) == 1);
  // Adapter 2: replica 2 holds it but has 3 outstanding > 2 x max(1, 0): the least loaded, 0.
  CHECK(router.pick(replicas, with_id(id_of(lora, 2))) == 0);
  // Adapter 3, held nowhere: least loaded (0) the first time; and again replica 0 next
  // time, where the first was sent, even when another is as idle.
  CHECK(router.pick(replicas, with_id(id_of(lora, 3))) == 0);
  // The base model: least outstanding.
  CHECK(router.pick(replicas, with_id(id_of(lora, LoraAssignment::kBase))) == 0);

  SECTION("end to end: repeat adapters stay on one replica, loading each adapter far less often") {
    auto run = [&](const char* router_name) {
      Scenario sc = scenario_from("{kind: vllm, lora: {max_loras: 2, max_cpu_loras: 4}}", "", "llama-3.1-8b",
                                  fmt::format("{{tp: 1, replicas: 2, router: {}}}", router_name));
      sc.workload.lora = lora_spec(4);
      std::vector<Request> rs;
      // One request a second, each done in about 1.1 s: one or two in flight, so the
      // preferred replica is never over twice the least load and affinity never yields.
      for (int i = 0; i < 200; ++i) rs.push_back(make_request(1.0 * i, 500, 100));
      VectorSource src(rs);
      return run_with_csv(sc, &src);
    };
    const RunWithCsv affinity = run("lora_affinity");
    const RunWithCsv spread = run("round_robin");
    REQUIRE(affinity.result.summary.completed == 200);
    // The share of requests served on their adapter's usual replica (the one that served
    // most of its requests).
    const LoraAssignment assign(lora_spec(4), 1);
    auto kept = [&](const RunWithCsv& r) { return servesim::testing::share_on_usual_replica(r.results, assign); };
    CAPTURE(kept(affinity), kept(spread), affinity.result.summary.lora->gpu_loads,
            spread.result.summary.lora->gpu_loads);
    CHECK(kept(affinity) == 1.0);  // every adapter on one replica
    CHECK(kept(spread) < 0.75);
    CHECK(affinity.result.summary.lora->gpu_loads < spread.result.summary.lora->gpu_loads / 2);
  }
}

TEST_CASE("LoRA runs are deterministic, fused decode steps price the adapters, and LoRA off changes nothing",
          "[lora][sim][determinism]") {
  const std::string engine = "{kind: vllm, lora: {max_loras: 4, max_cpu_loras: 16}}";
  const std::string workload =
      "{seed: 5, requests: 400, arrival: {process: poisson, rate: 8}, input_tokens: {dist: lognormal, mean: 800, "
      "stddev: 300, max: 4000}, output_tokens: {dist: uniform, min: 20, max: 300}, "
      "lora: {adapters: 50, rank: 8, popularity: zipf, zipf_s: 1.1, share: 0.8}}";
  const Scenario sc = scenario_from(engine, workload);
  const SimulationResult a = simulate(sc);
  const SimulationResult b = simulate(sc);
  CHECK(summary_json(a.summary).dump() == summary_json(b.summary).dump());
  REQUIRE(a.summary.lora);
  CHECK(a.summary.lora->gpu_loads > 0);
  SECTION("with and without fused decode steps: the same run") {
    SimulationOptions step_by_step;
    step_by_step.fast_forward = false;
    const SimulationResult c = simulate(sc, step_by_step);
    CHECK(c.summary.completed == a.summary.completed);
    CHECK(c.summary.e2e_ms.mean == Approx(a.summary.e2e_ms.mean).epsilon(1e-6));
    CHECK(c.summary.lora->gpu_loads == a.summary.lora->gpu_loads);
  }
  SECTION("adapters cost time: the same workload on the base model is faster") {
    Scenario base = sc;
    base.workload.lora.reset();
    const SimulationResult plain = simulate(base);
    CHECK_FALSE(plain.summary.lora);
    CHECK(plain.summary.tpot_ms.mean < a.summary.tpot_ms.mean);
  }
}

TEST_CASE("plan --emit: vLLM's LoRA flags as simulated, SGLang and TensorRT-LLM refused", "[lora][deploy]") {
  const Scenario sc = scenario_from("{kind: vllm, lora: {max_loras: 12, max_cpu_loras: 40, max_lora_rank: 32}}");
  std::map<std::string, std::string> flags;
  for (const auto& [flag, value] : deploy::vllm_args(sc)) flags[flag] = value;
  CHECK(flags.count("--enable-lora") == 1);
  CHECK(flags["--max-loras"] == "12");
  CHECK(flags["--max-cpu-loras"] == "40");
  CHECK(flags["--max-lora-rank"] == "32");
  deploy::DeploymentPlan plan;
  plan.scenario = &sc;
  plan.label = "h100-sxm bf16 tp=1";
  plan.source = "test.yaml";
  plan.replicas = 1;
  CHECK_THROWS_WITH(deploy::emit_deployment(plan, deploy::EmitTarget::sglang),
                    Catch::Contains("emitted for vllm and kubernetes (vLLM) only"));
  CHECK_THROWS_WITH(deploy::emit_deployment(plan, deploy::EmitTarget::trtllm),
                    Catch::Contains("emitted for vllm and kubernetes (vLLM) only"));
  const auto files = deploy::emit_deployment(plan, deploy::EmitTarget::vllm);
  REQUIRE(files.size() == 1);
  CHECK(files[0].text.find("--enable-lora") != std::string::npos);
  CHECK(files[0].text.find("--lora-modules") != std::string::npos);  // the note on registering adapters
}
