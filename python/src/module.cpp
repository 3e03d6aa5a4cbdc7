// The compiled half of the `servesim` Python package (python/servesim/ is the other):
// thin bindings over the library calls the CLI commands make, so a Python result is
// the CLI's result. JSON crosses as text (json.loads on the Python side); per-request
// results and timelines cross as NumPy columns. All library code runs through
// released_call (released_call.h): with the GIL released, so other Python threads
// (and other simulations) run meanwhile and no lock order can deadlock with the GIL,
// stopped by Ctrl-C in the main thread, its warnings issued as Python warnings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <thread>

#include "columns.h"
#include "released_call.h"
#include "run_text.h"
#include "config/config_error.h"
#include "config/describe.h"
#include "config/edits.h"
#include "config/plan_reader.h"
#include "config/plan_document.h"
#include "config/scenario_reader.h"
#include "planning/plan.h"
#include "planning/sweep.h"
#include "planning/sweep_checkpoint.h"
#include "planning/sweep_shard.h"
#include "report/inspect_report.h"
#include "report/run_report.h"
#include "run/simulation.h"
#include "scenario_input.h"
#include "util/error.h"
#include "util/interrupt.h"
#include "util/version.h"

namespace py = pybind11;

namespace servesim::python {
namespace {

PyObject* error_type = nullptr;         // servesim.Error (a ValueError)
PyObject* config_error_type = nullptr;  // servesim.ConfigError (a servesim.Error)

const char* kind_name(ConfigErrorKind k) {
  switch (k) {
    case ConfigErrorKind::unknown_key: return "unknown_key";
    case ConfigErrorKind::bad_value: return "bad_value";
    case ConfigErrorKind::missing: return "missing";
    case ConfigErrorKind::conflict: return "conflict";
  }
  return "";
}

// servesim's exceptions as Python ones, with the message users read on the CLI.
void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const Interrupted& e) {
    PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
  } catch (const ConfigError& e) {
    py::object exc = py::reinterpret_borrow<py::object>(config_error_type)(e.what());
    exc.attr("file") = e.file();
    exc.attr("line") = e.line();
    exc.attr("column") = e.column();
    exc.attr("key_path") = e.key_path();
    exc.attr("kind") = kind_name(e.kind());
    PyErr_SetObject(config_error_type, exc.ptr());
  } catch (const Error& e) {
    PyErr_SetString(error_type, e.what());
  }
}

int default_threads(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

using Axes = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::vector<planning::SweepAxis> sweep_axes(const Axes& axes) {
  std::vector<planning::SweepAxis> out;
  for (const auto& [key, values] : axes) out.push_back({key, values});
  return out;
}

// What a run hands back to Python (built without the GIL, converted with it).
struct RunOutput {
  std::string summary;  // JSON text
  std::string text;     // what `servesim run` prints (run_text.h)
  RequestResults requests;
  std::vector<TimelineRow> timeline;
  std::int64_t kv_blocks_per_replica = 0;
};

// run: {summary (JSON text), text, requests (columns), timeline (columns), kv_blocks_per_replica, warnings}.
py::dict run(const ScenarioInput& in, const std::vector<std::string>& sets, std::size_t timeline_rows,
             bool fast_forward, bool keep_requests, int seed_replicates) {
  std::vector<std::string> warnings;
  RunOutput o = released_call(
      [&] {
        RunOutput out;
        const LoadedScenario ls = load_input(in, sets);
        const Scenario sc = parse_scenario(ls.doc, ls.source);
        SimulationOptions opt;
        opt.fast_forward = fast_forward;
        opt.timeline_rows = timeline_rows;
        if (keep_requests) opt.request_results = &out.requests;
        SimulationResult r = simulate(sc, opt);
        nlohmann::json j = run_report_json(sc, r);
        add_seed_spread(j, sc, r, seed_replicates, fast_forward);  // as `run` does (-1: automatic)
        out.summary = j.dump();
        out.text = run_text(sc, r, j);
        out.timeline = std::move(r.timeline);
        out.kv_blocks_per_replica = r.kv_blocks_per_replica;
        return out;
      },
      &warnings);
  py::dict d;
  d["summary"] = o.summary;
  d["text"] = o.text;
  d["requests"] = request_columns(o.requests);
  d["timeline"] = timeline_columns(o.timeline);
  d["kv_blocks_per_replica"] = o.kv_blocks_per_replica;
  d["warnings"] = warnings;
  return d;
}

// sweep: (CSV text, JSON text) exactly as `sweep --out F.csv` / `--out F.json` write them.
// max_points 0: the default bound (planning/sweep.h kDefaultMaxSweepPoints).
py::tuple sweep(const ScenarioInput& in, const std::vector<std::string>& sets, const Axes& axes, int jobs,
                std::size_t max_points) {
  const auto [csv, json] = released_call([&] {
    const LoadedScenario ls = load_input(in, sets);
    planning::SweepOptions opt;
    opt.threads = default_threads(jobs);
    if (max_points > 0) opt.max_points = max_points;
    planning::MergedSweep m;
    m.axes = sweep_axes(axes);
    m.records = planning::run_sweep_checkpointed(ls.doc, ls.source, m.axes, opt, "", "").records;
    return std::pair(planning::sweep_output_text(m, false), planning::sweep_output_text(m, true));
  });
  return py::make_tuple(csv, json);
}

// One shard's file text (planning/sweep_shard.h); the fingerprint is the CLI's, so
// Python and CLI shards of one sweep merge together.
std::string sweep_shard(const ScenarioInput& in, const std::vector<std::string>& sets, const Axes& axes,
                        std::size_t k, std::size_t n, int jobs) {
  return released_call([&] {
    const LoadedScenario ls = load_input(in, sets);
    const auto ax = sweep_axes(axes);
    const planning::Shard shard = planning::parse_shard(std::to_string(k) + "/" + std::to_string(n));
    planning::SweepOptions opt;
    opt.threads = default_threads(jobs);
    const std::string fingerprint = planning::sweep_fingerprint(ls.text, sets, ax);
    return planning::run_sweep_shard(ls.doc, ls.source, ax, opt, shard, fingerprint);
  });
}

py::tuple merge_shards(const std::vector<std::string>& texts, const std::vector<std::string>& names) {
  const auto [csv, json] = released_call([&] {
    std::vector<std::pair<std::string, std::string>> files;
    for (std::size_t i = 0; i < texts.size(); ++i)
      files.emplace_back(i < names.size() ? names[i] : "shard #" + std::to_string(i), texts[i]);
    const planning::MergedSweep m = planning::merge_sweep_shards(files);
    return std::pair(planning::sweep_output_text(m, false), planning::sweep_output_text(m, true));
  });
  return py::make_tuple(csv, json);
}

std::pair<std::string, std::vector<std::string>> parse_vary(const std::string& text) {
  return released_call([&] {
    planning::SweepAxis a = planning::parse_vary(text);
    return std::pair(a.key, a.values);
  });
}

// plan: (JSON text, CSV text, table text), as `plan --json` / --out's plan.csv / the table.
py::tuple plan(const ScenarioInput& in, const std::vector<std::string>& sets, const PlanSection& flags, int jobs) {
  const auto [json, csv, table] = released_call([&] {
    LoadedScenario ls = load_input(in, sets);
    planning::PlanOptions o;
    static_cast<PlanSection&>(o) = flags;
    read_plan_section(ls.doc, in.path.empty() ? ConfigNode() : plan_document(in.path), ls.source, o);
    o.threads = default_threads(jobs);
    const planning::PlanResult p = planning::plan(ls.doc, ls.source, o);
    return std::tuple(planning::plan_json(p).dump(), planning::plan_csv(p), planning::plan_table(p));
  });
  return py::make_tuple(json, csv, table);
}

// inspect: the JSON of `inspect --json`; `edits` are (key, text) pairs applied as the
// CLI's flag shortcuts are (before `sets`, which win).
std::string inspect(const ScenarioInput& in, const std::vector<std::pair<std::string, std::string>>& text_edits,
                    const std::vector<std::pair<std::string, double>>& number_edits,
                    const std::vector<std::string>& sets, const InspectBatches& batches) {
  return released_call([&] {
    LoadedScenario ls;
    if (in.path.empty() && in.text.empty()) {
      ls.doc = ConfigNode::map();
      ls.source = "--flags";
    } else {
      ls = load_input(in, {});
    }
    for (const auto& [k, v] : text_edits) apply_edit(ls.doc, text_edit(k, v));
    for (const auto& [k, v] : number_edits) apply_edit(ls.doc, number_edit(k, v));
    apply_edits(ls.doc, parse_edits(sets));
    return inspect_json(inspect_setup(ls.doc, ls.source, batches), batches).dump();
  });
}

std::string describe(const std::string& what, bool markdown) {
  return released_call([&] {
    const auto& sections = config_sections();
    const auto parts = what.empty() ? describe_all(sections) : describe_query(sections, what);
    return markdown ? describe_markdown(parts) : describe_text(parts);
  });
}

}  // namespace
}  // namespace servesim::python

PYBIND11_MODULE(_servesim, m) {
  using namespace servesim;
  using namespace servesim::python;
  m.doc() = "servesim's compiled core; use the `servesim` package, not this module";

  error_type = PyErr_NewExceptionWithDoc("servesim.Error", "A servesim error: bad input or an infeasible scenario.",
                                         PyExc_ValueError, nullptr);
  config_error_type = PyErr_NewExceptionWithDoc(
      "servesim.ConfigError",
      "A configuration key was refused; .file, .line, .column, .key_path and .kind say where and why.", error_type,
      nullptr);
  m.add_object("Error", py::handle(error_type));
  m.add_object("ConfigError", py::handle(config_error_type));
  PyObject* warning_type = PyErr_NewExceptionWithDoc(
      "servesim.ServesimWarning",
      "Something servesim had to assume or adjust in an input that is still usable (the CLI's 'warning: ...').",
      PyExc_UserWarning, nullptr);
  m.add_object("ServesimWarning", py::handle(warning_type));
  set_warning_type(warning_type);
  py::register_exception_translator(&translate);
  m.attr("version") = kServesimVersion;

  // Everything a later call would otherwise initialise on first use while holding
  // the GIL: the main thread's id (signals are handled there), NumPy and pybind11's
  // NumPy statics, and the configuration key registry (describe, every parse).
  set_main_thread(py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>());
  prepare_columns();
  (void)config_sections();

  py::class_<ScenarioInput>(m, "ScenarioInput")
      .def(py::init<>())
      .def_readwrite("path", &ScenarioInput::path)
      .def_readwrite("text", &ScenarioInput::text)
      .def_readwrite("origin", &ScenarioInput::origin);
  py::class_<PlanSection>(m, "PlanSection")
      .def(py::init<>())
      .def_readwrite("target_rate", &PlanSection::target_rate)
      .def_readwrite("gpu_budget", &PlanSection::gpu_budget)
      .def_readwrite("gpus", &PlanSection::gpus)
      .def_readwrite("weights", &PlanSection::weights)
      .def_readwrite("tps", &PlanSection::tps)
      .def_readwrite("pps", &PlanSection::pps)
      .def_readwrite("max_replicas", &PlanSection::max_replicas)
      .def_readwrite("trial_requests", &PlanSection::trial_requests)
      .def_readwrite("tolerance", &PlanSection::tolerance);
  py::class_<InspectBatches>(m, "InspectBatches")
      .def(py::init<>())
      .def_readwrite("prefill_batch", &InspectBatches::prefill_batch)
      .def_readwrite("prefill_len", &InspectBatches::prefill_len)
      .def_readwrite("decode_batch", &InspectBatches::decode_batch)
      .def_readwrite("decode_context", &InspectBatches::decode_context);

  m.def("run", &run, py::arg("scenario"), py::arg("sets"), py::arg("timeline_rows"), py::arg("fast_forward"),
        py::arg("keep_requests"), py::arg("seed_replicates"));
  m.def("sweep", &sweep, py::arg("scenario"), py::arg("sets"), py::arg("axes"), py::arg("jobs"),
        py::arg("max_points"));
  m.def("sweep_shard", &sweep_shard, py::arg("scenario"), py::arg("sets"), py::arg("axes"), py::arg("k"),
        py::arg("n"), py::arg("jobs"));
  m.def("merge_shards", &merge_shards, py::arg("texts"), py::arg("names"));
  m.def("parse_vary", &parse_vary, py::arg("text"));
  m.def("plan", &plan, py::arg("scenario"), py::arg("sets"), py::arg("flags"), py::arg("jobs"));
  m.def("inspect", &inspect, py::arg("scenario"), py::arg("text_edits"), py::arg("number_edits"), py::arg("sets"),
        py::arg("batches"));
  m.def("describe", &describe, py::arg("what"), py::arg("markdown"));
}
