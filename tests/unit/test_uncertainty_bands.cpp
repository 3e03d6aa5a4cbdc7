// Uncertainty bands (uncertainty/bands.h): quantiles and band arithmetic in closed form,
// the fallback to coarser groups, no band far from the data, and a missing or broken table.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "uncertainty/bands.h"
#include "uncertainty/coverage.h"
#include "uncertainty/residual_csv.h"
#include "uncertainty/source_spread.h"
#include "util/error.h"

using namespace servesim;
using namespace servesim::bands;

namespace {

BandKey key(bool calibrated, const std::string& family, const std::string& load) {
  return BandKey{calibrated, family, "vllm", load};
}

// n residuals log(1 + k/100) for k = first..first+n-1: measured k% above the prediction.
void add(std::vector<Residual>& out, const BandKey& k, const std::string& metric, int first, int n,
         const std::string& prefix) {
  for (int i = 0; i < n; ++i)
    out.push_back({prefix + std::to_string(i), k, metric, std::log(1.0 + (first + i) / 100.0)});
}

}  // namespace

TEST_CASE("bands: quantiles interpolate between order statistics (numpy's default)", "[bands]") {
  // 1..11: position q*(n-1) = 1 and 9 fall on the 2nd and 10th values.
  std::vector<double> v;
  for (int i = 11; i >= 1; --i) v.push_back(i);  // order does not matter
  CHECK(quantile(v, 0.1) == Approx(2.0));
  CHECK(quantile(v, 0.9) == Approx(10.0));
  CHECK(quantile(v, 0.5) == Approx(6.0));
  // Two values: 10% of the way from 0 to 10.
  CHECK(quantile({0.0, 10.0}, 0.1) == Approx(1.0));
  CHECK(quantile({5.0}, 0.9) == Approx(5.0));
  CHECK(std::isnan(quantile({}, 0.5)));
}

TEST_CASE("bands: the interval is the prediction times exp of the residual quantiles", "[bands]") {
  // 11 residuals log(1.00) .. log(1.10): q10 = log(1.01), q90 = log(1.09) (positions 1 and 9).
  std::vector<Residual> r;
  add(r, key(false, "hopper", "low"), "ttft_mean", 0, 11, "e");
  const BandTable t = build_table(r, 8, 0.8, BandMethod::quantile);
  const Band b = lookup(t, key(false, "hopper", "low"), "ttft_mean", 200.0);
  REQUIRE(b.available);
  CHECK(b.lo == Approx(202.0));
  CHECK(b.hi == Approx(218.0));
  CHECK(b.n == 11);
  CHECK(b.group == "defaults/hopper/vllm/low");
}

TEST_CASE("bands: conformal bounds are the k-th smallest and largest, k = floor((n+1)(1-c)/2)", "[bands]") {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  // n = 20, c = 0.8: k = floor(2.1) = 2.
  CHECK(conformal_bounds(v, 0.8) == std::pair{2.0, 19.0});
  // n = 11: k = floor(1.2) = 1, the extremes; n = 8 (k would be 0): still the extremes.
  CHECK(conformal_bounds({5, 1, 3, 2, 4, 6, 7, 8, 9, 10, 11}, 0.8) == std::pair{1.0, 11.0});
  CHECK(conformal_bounds({1, 2, 3, 4, 5, 6, 7, 8}, 0.8) == std::pair{1.0, 8.0});
  // The table uses them by default: residuals log(1.00) .. log(1.10), prediction 200.
  std::vector<Residual> r;
  add(r, key(false, "hopper", "low"), "ttft_mean", 0, 11, "e");
  const Band b = lookup(build_table(r, 8, 0.8), key(false, "hopper", "low"), "ttft_mean", 200.0);
  CHECK(b.lo == Approx(200.0));
  CHECK(b.hi == Approx(220.0));
}

TEST_CASE("bands: a small group falls back to a coarser one and says which", "[bands]") {
  std::vector<Residual> r;
  add(r, key(false, "hopper", "low"), "e2e_mean", 0, 10, "low");
  add(r, key(false, "hopper", "high"), "e2e_mean", 20, 3, "high");  // 3 < min_points
  add(r, key(false, "ampere", "low"), "e2e_mean", 0, 2, "amp");
  const BandTable t = build_table(r, 8, 0.8);

  const Band low = lookup(t, key(false, "hopper", "low"), "e2e_mean", 1.0);
  CHECK(low.group == "defaults/hopper/vllm/low");
  CHECK(low.n == 10);
  // High load on hopper: 3 runs, so all hopper runs (13).
  const Band high = lookup(t, key(false, "hopper", "high"), "e2e_mean", 1.0);
  CHECK(high.group == "defaults/hopper/vllm/*");
  CHECK(high.n == 13);
  // Ampere: 2 runs of its own, then low load on any GPU (12), before pooling the loads.
  const Band amp = lookup(t, key(false, "ampere", "low"), "e2e_mean", 1.0);
  CHECK(amp.group == "defaults/*/vllm/low");
  CHECK(amp.n == 12);
  // Calibrated with no calibrated runs at all: defaults and calibrated pooled.
  const Band cal = lookup(t, key(true, "hopper", "low"), "e2e_mean", 1.0);
  CHECK(cal.group == "*/*/vllm/*");
  CHECK(cal.n == 15);
  CHECK(group_label(cal.group) == "defaults and calibrated, all GPU families, vllm, any load");
  CHECK(group_label("defaults/hopper/vllm/high") == "defaults, hopper GPUs, vllm, high load");
}

TEST_CASE("bands: no band for a GPU family or framework without measured runs", "[bands]") {
  std::vector<Residual> r;
  add(r, key(false, "hopper", "low"), "tpot_mean", 0, 10, "e");
  const BandTable t = build_table(r, 8, 0.8);
  const Band b = lookup(t, key(false, "cdna3", "low"), "tpot_mean", 10.0);
  CHECK_FALSE(b.available);
  CHECK_THAT(b.reason, Catch::Contains("cdna3") && Catch::Contains("hopper"));
  const Band f = lookup(t, BandKey{false, "hopper", "sglang", "low"}, "tpot_mean", 10.0);
  CHECK_FALSE(f.available);
  CHECK_THAT(f.reason, Catch::Contains("sglang"));
  // A metric the data never measured.
  CHECK_FALSE(lookup(t, key(false, "hopper", "low"), "ttft_p99", 10.0).available);
}

TEST_CASE("bands: reported statistics borrow the measured metric closest to them", "[bands]") {
  CHECK(source_metric("ttft", "p50") == "ttft_mean");
  CHECK(source_metric("ttft", "p99") == "ttft_p99");
  CHECK(source_metric("tpot", "p90") == "tpot_mean");
  CHECK(source_metric("e2e", "mean") == "e2e_mean");
  CHECK(source_metric("queue", "mean").empty());
  CHECK(framework_family("vllm-2023-eager") == "vllm");
  CHECK(framework_family("lmdeploy-turbomind") == "lmdeploy");
  CHECK(load_regime(0.2, 0.1, false) == "low");
  CHECK(load_regime(0.2, 0.1, true) == "high");
  CHECK(load_regime(0.9, 0.1, false) == "high");
  CHECK(load_regime(0.1, 0.9, false) == "high");
}

TEST_CASE("bands: the table round-trips through JSON", "[bands]") {
  std::vector<Residual> r;
  add(r, key(true, "ampere", "high"), "e2e_p99", -5, 9, "e");
  BandTable t = build_table(r, 8, 0.8);
  t.provenance = {{"commit", "abc"}};
  const BandTable back = table_from_json(table_to_json(t), "test");
  CHECK(back.families == t.families);
  CHECK(back.groups.at("e2e_p99").at("calibrated/ampere/vllm/high").q_lo ==
        Approx(t.groups.at("e2e_p99").at("calibrated/ampere/vllm/high").q_lo));
  CHECK(back.provenance.at("commit") == "abc");
}

TEST_CASE("bands: a missing or broken table is a clear message, never a crash", "[bands]") {
  const auto dir = std::filesystem::temp_directory_path() / "servesim-bands-test";
  std::filesystem::create_directories(dir);
  CHECK_THROWS_AS(load_table((dir / "absent.json").string()), Error);
  {
    std::ofstream((dir / "bad.json").string()) << "{not json";
  }
  CHECK_THROWS_WITH(load_table((dir / "bad.json").string()), Catch::Contains("not valid JSON"));
  {
    std::ofstream((dir / "wrong.json").string()) << R"({"schema_version": 1})";
  }
  CHECK_THROWS_WITH(load_table((dir / "wrong.json").string()), Catch::Contains("not a band table"));
  // Without a table the run output says why instead of inventing a band.
  const nlohmann::json summary = {{"ttft_ms", {{"mean", 10.0}, {"p50", 9.0}, {"p90", 12.0}, {"p99", 15.0}}}};
  const nlohmann::json j = summary_bands_json(nullptr, "no uncertainty band table at X", key(false, "hopper", "low"),
                                              summary);
  CHECK(j.at("available") == false);
  CHECK(j.at("reason") == "no uncertainty band table at X");
  CHECK_THAT(summary_bands_text(j), Catch::Contains("no uncertainty band table"));
}

TEST_CASE("bands: the summary JSON carries lo/hi/group/n for each latency statistic", "[bands]") {
  std::vector<Residual> r;
  for (const char* m : {"ttft_mean", "ttft_p90", "ttft_p99", "tpot_mean", "e2e_mean", "e2e_p90", "e2e_p99"})
    add(r, key(false, "hopper", "low"), m, 0, 11, "e");
  const BandTable t = build_table(r, 8, 0.8, BandMethod::quantile);
  nlohmann::json summary;
  for (const char* s : {"ttft_ms", "tpot_ms", "e2e_ms"})
    summary[s] = {{"mean", 100.0}, {"p50", 100.0}, {"p90", 100.0}, {"p99", 100.0}};
  const nlohmann::json j = summary_bands_json(&t, "", key(false, "hopper", "low"), summary);
  CHECK(j.at("available") == true);
  CHECK(j.at("tpot_ms").at("p99").at("from") == "tpot_mean");
  CHECK(j.at("e2e_ms").at("p50").at("lo").get<double>() == Approx(101.0));
  CHECK(j.at("e2e_ms").at("p50").at("hi").get<double>() == Approx(109.0));
  CHECK(j.at("ttft_ms").at("mean").at("n") == 11);
  CHECK_THAT(summary_bands_text(j), Catch::Contains("[101.0, 109.0]") && Catch::Contains("n=11"));
}

TEST_CASE("bands: a family measured for one metric only gets no band for the others, said", "[bands]") {
  // Hopper: every metric (11 runs at 0..10%); Blackwell: TPOT only (the ML.ENERGY runs
  // publish ITL, no TTFT or E2E). A Blackwell prediction gets its TPOT band from its own
  // family (quantiles of 0..10%: [1.01, 1.09] x 100) and none for TTFT and E2E, which are
  // not borrowed from Hopper; the summary lists them with the reason.
  std::vector<Residual> r;
  for (const char* m : {"ttft_mean", "ttft_p90", "ttft_p99", "tpot_mean", "e2e_mean", "e2e_p90", "e2e_p99"})
    add(r, key(false, "hopper", "low"), m, 0, 11, "h");
  add(r, key(false, "blackwell", "low"), "tpot_mean", 0, 11, "b");
  const BandTable t = build_table(r, 8, 0.8, BandMethod::quantile, false);
  const Band ttft = lookup(t, key(false, "blackwell", "low"), "ttft_mean", 100.0);
  CHECK_FALSE(ttft.available);
  CHECK_THAT(ttft.reason, Catch::Contains("on blackwell GPUs do not measure it (only those on hopper do)"));
  nlohmann::json summary;
  for (const char* s : {"ttft_ms", "tpot_ms", "e2e_ms"})
    summary[s] = {{"mean", 100.0}, {"p50", 100.0}, {"p90", 100.0}, {"p99", 100.0}};
  const nlohmann::json j = summary_bands_json(&t, "", key(false, "blackwell", "low"), summary);
  CHECK(j.at("available") == true);
  CHECK(j.at("tpot_ms").at("mean").at("lo").get<double>() == Approx(101.0));
  REQUIRE(j.at("missing").size() == 1);
  CHECK(j.at("missing")[0].at("statistics").size() == 8);  // TTFT and E2E, 4 statistics each
  CHECK_THAT(summary_bands_text(j), Catch::Contains("no band for TTFT mean, p50, p90, p99; E2E mean, p50, p90, p99:"));
}

TEST_CASE("bands: leave-one-out coverage holds each experiment out of its own band", "[bands]") {
  // 21 experiments with residuals 0..20%, each held out of the band of the other 20.
  std::vector<Residual> r;
  add(r, key(false, "hopper", "low"), "e2e_mean", 0, 21, "e");
  // Plain percentiles: q10/q90 of the other 20 sit at positions 1.9 and 17.1 of their
  // order statistics; held out, 0%, 1% and 2% fall below (removing 2% moves q10 to 2.8%),
  // 18%, 19% and 20% above: 15 of 21 inside (small samples under-cover).
  const CoverageCell q = leave_one_out_coverage(r, 8, 0.8, BandMethod::quantile).by_metric.at("e2e_mean");
  CHECK(q.n == 21);
  CHECK(q.below == 3);
  CHECK(q.above == 3);
  CHECK(q.share() == Approx(15.0 / 21.0));
  // Conformal: the 2nd smallest and 2nd largest of the other 20; only 0%, 1%, 19%, 20%
  // fall outside: 17 of 21, 81%.
  const CoverageCell c = leave_one_out_coverage(r, 8, 0.8).by_metric.at("e2e_mean");
  CHECK(c.below == 2);
  CHECK(c.above == 2);
  CHECK(c.share() == Approx(17.0 / 21.0));
}

TEST_CASE("bands: a run using what no measured run did gets no band, naming what", "[bands]") {
  std::vector<Residual> r;
  add(r, key(false, "hopper", "low"), "tpot_mean", 0, 11, "e");
  const BandTable t = build_table(r, 8, 0.8);
  BandKey k = key(false, "hopper", "low");
  REQUIRE(lookup(t, k, "tpot_mean", 10.0).available);
  k.uncovered = {"fp8 weights", "eagle speculative decoding"};
  const Band b = lookup(t, k, "tpot_mean", 10.0);
  CHECK_FALSE(b.available);
  CHECK_THAT(b.reason, Catch::Contains("no measured run covers: fp8 weights, eagle speculative decoding"));
}

TEST_CASE("bands: a band wider than the table's limit is refused with its range", "[bands]") {
  // 11 residuals: measured 0% .. +200% above the prediction (k% = 0, 20, ..., 200): the
  // conformal band of n = 11 is the extremes, [1, 3] x the prediction, geometric
  // half-width 100 x (sqrt(3) - 1) = 73.2%: kept under the default limit of 100%.
  std::vector<Residual> r;
  for (int i = 0; i <= 10; ++i)
    r.push_back({"e" + std::to_string(i), key(false, "hopper", "low"), "e2e_mean", std::log(1.0 + 0.2 * i)});
  BandTable t = build_table(r, 8, 0.8);
  const Band kept = lookup(t, key(false, "hopper", "low"), "e2e_mean", 10.0);
  REQUIRE(kept.available);
  CHECK(half_width_pct(kept.lo, kept.hi) == Approx(100 * (std::sqrt(3.0) - 1)));
  // A limit of 50%: refused, saying the group's range (+0% to +200%) and the width.
  t.max_half_width_pct = 50;
  const Band refused = lookup(t, key(false, "hopper", "low"), "e2e_mean", 10.0);
  CHECK_FALSE(refused.available);
  CHECK_THAT(refused.reason, Catch::Contains("+0% to +200%") && Catch::Contains("+-73%"));
  // What the output groups refused statistics by: the same for every metric of the group.
  CHECK_THAT(refused.common_reason, Catch::Contains("n=11) miss them by more than a band of +-50% may span"));
  nlohmann::json summary;
  summary["e2e_ms"] = {{"mean", 10.0}, {"p50", 10.0}, {"p90", 10.0}, {"p99", 10.0}};
  summary["tpot_ms"] = {{"mean", 10.0}, {"p50", 10.0}, {"p90", 10.0}, {"p99", 10.0}};
  r.clear();
  for (int i = 0; i <= 10; ++i) {
    r.push_back({"e" + std::to_string(i), key(false, "hopper", "low"), "e2e_mean", std::log(1.0 + 0.2 * i)});
    r.push_back({"t" + std::to_string(i), key(false, "hopper", "low"), "tpot_mean", std::log(1.0 + 0.01 * i)});
  }
  BandTable both = build_table(r, 8, 0.8);
  both.max_half_width_pct = 50;
  const nlohmann::json j = summary_bands_json(&both, "", key(false, "hopper", "low"), summary);
  // Two causes: E2E mean and p50 (from e2e_mean) too wide, with that metric's own figures as
  // details; E2E p90 and p99 have no residuals here at all (one reason each).
  REQUIRE(j.at("missing").size() == 3);
  int with_details = 0;
  for (const auto& gap : j.at("missing"))
    if (gap.contains("details")) {
      ++with_details;
      CHECK(gap.at("statistics") == nlohmann::json({"E2E mean", "E2E p50"}));
      CHECK_THAT(gap.at("details")[0].get<std::string>(), Catch::Contains("+0% to +200%"));
    }
  CHECK(with_details == 1);
  CHECK_THAT(summary_bands_text(j), Catch::Contains("no band for E2E mean, p50: the closest measured runs") &&
                                        Catch::Contains("no band for E2E p90: no measured residuals for e2e_p90"));;
}

TEST_CASE("bands: a group too wide to inform gives way to a coarser one at the same load", "[bands]") {
  // High load on hopper: 8 runs, 0..6% and one at +300%. n = 8: k = floor(9 x 0.1) = 0, at
  // least 1, so the band is the extremes [+0%, +300%]: half-width 100 x (sqrt(4) - 1) = 100%,
  // over a limit of 50%. High load on any GPU (12 ampere runs more, 0..11%): n = 20, k = 2,
  // the 2nd smallest (0%, twice) and the 2nd largest (11%): [1.00, 1.11] x the prediction,
  // half-width 100 x (sqrt(1.11) - 1) = 5.36%. One source: no spread between sources.
  std::vector<Residual> r;
  add(r, key(false, "hopper", "high"), "tpot_mean", 0, 7, "high");
  r.push_back({"outlier", key(false, "hopper", "high"), "tpot_mean", std::log(4.0)});
  std::vector<Residual> other_gpu = r, other_load = r;
  add(other_gpu, key(false, "ampere", "high"), "tpot_mean", 0, 12, "amp");
  BandTable t = build_table(other_gpu, 8, 0.8);
  t.max_half_width_pct = 50;
  const Band b = lookup(t, key(false, "hopper", "high"), "tpot_mean", 10.0);
  REQUIRE(b.available);
  CHECK(b.group == "defaults/*/vllm/high");
  CHECK(b.n == 20);
  CHECK(b.lo == Approx(10.0));
  CHECK(b.hi == Approx(11.1));
  CHECK(b.reason.empty());
  // The same 12 runs measured at low load on hopper: hopper at any load would be as narrow,
  // but it pools the loads, so it does not stand in; the closest group's range is the reason.
  add(other_load, key(false, "hopper", "low"), "tpot_mean", 0, 12, "low");
  BandTable u = build_table(other_load, 8, 0.8);
  u.max_half_width_pct = 50;
  const Band none = lookup(u, key(false, "hopper", "high"), "tpot_mean", 10.0);
  CHECK_FALSE(none.available);
  CHECK_THAT(none.reason, Catch::Contains("defaults, hopper GPUs, vllm, high load, n=8") &&
                              Catch::Contains("+0% to +300%"));
}

TEST_CASE("bands: leave one source out holds every run of a source out together", "[bands]") {
  // Source A: 11 runs at 0..10% (hopper); source B: 11 runs at 40..50% (ampere). Held out,
  // B's runs see only A's band [0%, 10%] (pooled: ampere is then unseen): all 11 above it;
  // A's runs see B's band [40%, 50%]: all 11 below. Leaving one *experiment* out instead
  // keeps each source's own runs in its band: 0%, 10%, 40%, 50% outside (the extremes of
  // each family's 11), 18 of 22 inside.
  std::vector<Residual> r;
  for (int i = 0; i <= 10; ++i) {
    r.push_back({"a" + std::to_string(i), key(false, "hopper", "low"), "tpot_mean", std::log(1.0 + i / 100.0), "A"});
    r.push_back({"b" + std::to_string(i), key(false, "ampere", "low"), "tpot_mean", std::log(1.4 + i / 100.0), "B"});
  }
  const CoverageReport s = leave_one_source_out_coverage(r, 8, 0.8);
  CHECK(s.by_source.at("A").below == 11);
  CHECK(s.by_source.at("B").above == 11);
  CHECK(s.all.inside == 0);
  // (Without the between-source spread, which these two sources would otherwise put at
  // ln(1.45 / 1.05) / sqrt(2): the test after this one.)
  const CoverageReport e = leave_one_out_coverage(r, 8, 0.8, BandMethod::conformal, false);
  CHECK(e.all.n == 22);
  CHECK(e.all.inside == 18);
}

TEST_CASE("bands: a new source's bias widens every band by the spread between sources", "[bands]") {
  // Source A: 11 hopper runs at 0..10% (median 5%); source B: 11 ampere runs at 40..50%
  // (median 45%). One cell (defaults, tpot_mean, low) shared by two sources: tau is the sd
  // of the two medians, |ln 1.45 - ln 1.05| / sqrt(2) = 0.32277 / 1.41421 = 0.22824, df 1.
  std::vector<Residual> r;
  for (int i = 0; i <= 10; ++i) {
    r.push_back({"a" + std::to_string(i), key(false, "hopper", "low"), "tpot_mean", std::log(1.0 + i / 100.0), "A"});
    r.push_back({"b" + std::to_string(i), key(false, "ampere", "low"), "tpot_mean", std::log(1.4 + i / 100.0), "B"});
  }
  // Queueing in it: high-load TTFT of a third source, 10x off, does not count.
  for (int i = 0; i < 5; ++i)
    r.push_back({"c" + std::to_string(i), key(false, "hopper", "high"), "ttft_mean", std::log(10.0), "C"});
  const SourceSpread sp = source_spread(r);
  CHECK(sp.cells == 1);
  CHECK(sp.df == 1);
  CHECK(sp.tau == Approx(std::log(1.45 / 1.05) / std::sqrt(2.0)));
  CHECK(sp.tau == Approx(0.22824).epsilon(1e-4));
  CHECK(queue_free("tpot_mean", "high"));
  CHECK_FALSE(queue_free("ttft_p99", "high"));
  CHECK(queue_free("e2e_mean", "low"));

  // A's group: conformal bounds of 11 are its extremes [ln 1.00, ln 1.10]: centre and
  // half-width h = ln(1.1) / 2 = 0.047655. Widened: sqrt(h^2 + (z tau)^2) with z = 1.28155
  // (80%): sqrt(0.047655^2 + 0.29250^2) = 0.29636, so at a prediction of 10 the band is
  // 10 x exp(0.047655 -+ 0.29636) = [7.798, 14.106].
  CHECK(normal_quantile(0.9) == Approx(1.2815516).epsilon(1e-7));
  CHECK(normal_quantile(0.5) == Approx(0.0).margin(1e-12));
  CHECK(normal_quantile(0.975) == Approx(1.959964).epsilon(1e-6));
  CHECK(normal_quantile(0.01) == Approx(-2.326348).epsilon(1e-6));
  const BandTable t = build_table(r, 8, 0.8);
  CHECK(t.source_tau == Approx(sp.tau));
  const Band b = lookup(t, key(false, "hopper", "low"), "tpot_mean", 10.0);
  REQUIRE(b.available);
  CHECK(b.lo == Approx(7.798).epsilon(1e-3));
  CHECK(b.hi == Approx(14.106).epsilon(1e-3));
  // Off: the group's own [1.00, 1.10] x 10.
  const Band own = lookup(build_table(r, 8, 0.8, BandMethod::conformal, false), key(false, "hopper", "low"),
                          "tpot_mean", 10.0);
  CHECK(own.lo == Approx(10.0));
  CHECK(own.hi == Approx(11.0));
  // The width limit applies to the widened band, and tau survives the JSON round trip.
  const BandTable back = table_from_json(table_to_json(t), "t.json");
  CHECK(back.source_tau == Approx(t.source_tau));
  CHECK(back.source_df == 1);
  // Held out together, A's runs see B's band [40%, 50%] widened the same way, but by the
  // tau of what is left (B and C: no cell two sources share): 0, so all 11 stay below.
  const CoverageReport s = leave_one_source_out_coverage(r, 8, 0.8);
  CHECK(s.by_source.at("A").below == 11);
}

TEST_CASE("bands: residuals of other sources are read from a CSV, line and column named on error", "[bands]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "servesim_residual_csv";
  fs::create_directories(dir);
  const std::string header = "experiment,source,calibrated,family,framework,load,uncovered,metric,measured,predicted\n";
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string good =
      write("good.csv", header + "r1,ds/v1/h100,0,hopper,vllm,high,,tpot_mean,11,10\n"
                                 "r2,ds/v1/h100,0,hopper,vllm,high,fp8 weights,tpot_mean,12,10\n");
  const ResidualCsv x = read_residual_csv(good);
  CHECK(x.rows == 2);
  CHECK(x.uncovered == 1);  // fp8 weights: left out, counted
  REQUIRE(x.residuals.size() == 1);
  CHECK(x.residuals[0].value == Approx(std::log(1.1)));
  CHECK(x.residuals[0].source == "ds/v1/h100");
  CHECK(x.residuals[0].key.load == "high");
  CHECK_THROWS_WITH(read_residual_csv(write("h.csv", "a,b\n")), Catch::Contains("h.csv:1") && Catch::Contains("header"));
  CHECK_THROWS_WITH(read_residual_csv(write("n.csv", header + "r1,s,0,hopper,vllm,high,,tpot_mean,11\n")),
                    Catch::Contains("n.csv:2") && Catch::Contains("9 fields, expected 10"));
  CHECK_THROWS_WITH(read_residual_csv(write("m.csv", header + "r1,s,0,hopper,vllm,high,,itl_p50,11,10\n")),
                    Catch::Contains("m.csv:2 (metric)") && Catch::Contains("not a band metric"));
  CHECK_THROWS_WITH(read_residual_csv(write("v.csv", header + "r1,s,0,hopper,vllm,high,,tpot_mean,0,10\n")),
                    Catch::Contains("v.csv:2 (measured)") && Catch::Contains("not a number > 0"));
  CHECK_THROWS_WITH(read_residual_csv(write("l.csv", header + "r1,s,0,hopper,vllm,busy,,tpot_mean,1,10\n")),
                    Catch::Contains("(load): expected low or high"));
  CHECK_THROWS_WITH(read_residual_csv(write("e.csv", "")), Catch::Contains("empty"));
  fs::remove_all(dir);
}

TEST_CASE("bands: the simulation's seed spread widens each band by its ratios", "[bands]") {
  nlohmann::json summary, rep1, rep2;
  for (const char* s : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
    summary[s] = {{"mean", 100.0}, {"p50", 100.0}, {"p90", 100.0}, {"p99", 100.0}};
    rep1[s] = {{"mean", 90.0}, {"p50", 100.0}, {"p90", 100.0}, {"p99", 130.0}};
    rep2[s] = {{"mean", 105.0}, {"p50", 100.0}, {"p90", 100.0}, {"p99", 95.0}};
  }
  nlohmann::json bands = {{"available", true}};
  for (const char* s : {"ttft_ms", "tpot_ms", "e2e_ms"})
    for (const char* stat : {"mean", "p50", "p90", "p99"}) bands[s][stat] = {{"lo", 95.0}, {"hi", 110.0}};
  widen_by_seed_spread(bands, summary, {rep1, rep2}, {2, 3});
  // mean: ratios 0.90 and 1.05: [95 x 0.90, 110 x 1.05] = [85.5, 115.5].
  CHECK(bands["tpot_ms"]["mean"]["lo"].get<double>() == Approx(85.5));
  CHECK(bands["tpot_ms"]["mean"]["hi"].get<double>() == Approx(115.5));
  // p50: both replicates equal the run: unchanged.
  CHECK(bands["e2e_ms"]["p50"]["lo"].get<double>() == Approx(95.0));
  CHECK(bands["e2e_ms"]["p50"]["hi"].get<double>() == Approx(110.0));
  // p99: ratios 1.30 and 0.95: [95 x 0.95, 110 x 1.30] = [90.25, 143].
  CHECK(bands["ttft_ms"]["p99"]["lo"].get<double>() == Approx(90.25));
  CHECK(bands["ttft_ms"]["p99"]["hi"].get<double>() == Approx(143.0));
  // The largest spread, 30%, is reported with the seeds.
  CHECK(bands["seed_spread"]["largest_pct"].get<double>() == Approx(30.0));
  CHECK(bands["seed_spread"]["seeds"] == nlohmann::json::array({2, 3}));
}
