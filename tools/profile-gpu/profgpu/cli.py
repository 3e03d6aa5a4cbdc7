"""Command line of tools/profile-gpu/profile_gpu.py. Parsing and output layout only;
torch is imported only when the measuring backend is chosen, so `--help`, the shape
checks and `--fake-timer` work on machines without PyTorch."""
import argparse
import copy
import os
import sys

from . import plan, profile, provenance, shapes, tables

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def parse_tps(text):
    try:
        tps = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tp {text!r}: expected a comma-separated list of integers, e.g. 1,2,4,8")
    if not tps or any(t < 1 for t in tps):
        raise argparse.ArgumentTypeError(f"--tp {text!r}: every TP degree must be >= 1")
    return tps


def positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return v


def build_parser():
    p = argparse.ArgumentParser(
        prog="profile_gpu.py",
        description="Time one transformer layer's kernels (GEMMs bf16/fp8, attention, RMSNorm, SiLU-and-mul, "
                    "rotary, residual add, all-reduce) for a model's TP shards on this GPU, and write the table "
                    "`servesim calibrate operators --data OUT` reads.")
    p.add_argument("--model", required=True,
                   help="servesim model YAML (models/<name>.yaml) or Hugging Face config.json")
    p.add_argument("--name", help="model name for a config.json (default: from _name_or_path); "
                                  "the core table is OUT/<name>.csv")
    p.add_argument("--tp", type=parse_tps, default=[1, 2, 4, 8],
                   help="TP degrees whose layer shards are timed (default 1,2,4,8; one GPU times every shard)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--quick", action="store_true", help="fewer points and repeats (~1 minute)")
    p.add_argument("--max-tokens", type=positive_int, help="largest GEMM M (num_tokens) to time")
    p.add_argument("--repeats", type=positive_int, help="timed runs per point (default 10; --quick 5)")
    p.add_argument("--warmup", type=positive_int, help="untimed runs per point (default 3; --quick 2)")
    p.add_argument("--no-fp8", action="store_true", help="skip fp8 GEMMs")
    p.add_argument("--no-attention", action="store_true", help="skip decode and prefill attention")
    p.add_argument("--no-allreduce", action="store_true", help="skip all-reduce (timed only with >= 2 GPUs)")
    p.add_argument("--no-flush", action="store_true", help="do not flush the L2 between timed runs")
    p.add_argument("--elementwise", choices=["auto", "compiled", "eager"], default="auto",
                   help="RMSNorm/SiLU-and-mul/rotary kernels: fused by torch.compile (auto: when it works) or eager")
    p.add_argument("--device", default="cuda", help="torch device (default cuda; 'cpu' only for smoke tests)")
    p.add_argument("--gpu", default="<gpu>", help="servesim GPU name, only for the next-step command printed")
    p.add_argument("--force", action="store_true", help="overwrite an existing table in OUT")
    p.add_argument("--dry-run", action="store_true", help="print what would be timed and exit (no GPU needed)")
    p.add_argument("--fake-timer", action="store_true",
                   help="SYNTHETIC: compute times from a closed-form roofline instead of measuring (tests only)")
    p.add_argument("--fake-gpus", type=positive_int, default=1, help="with --fake-timer: GPUs to pretend (all-reduce)")
    return p


def _under(path, folder):
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder + os.sep)


def check_out(args, model):
    if args.fake_timer and _under(args.out, os.path.join(REPO_ROOT, "data")):
        # Synthetic tables must never sit where measured data is committed.
        raise SystemExit(f"error: --fake-timer output {args.out} is under {REPO_ROOT}/data; synthetic times are not data")
    core = os.path.join(args.out, f"{model.name}.csv")
    if os.path.exists(core) and not args.force:
        raise SystemExit(f"error: {core} exists (give --force to overwrite)")


def make_backend(args, settings):
    if args.fake_timer:
        from .fake_timer import FakeBackend, FakeGpu
        return FakeBackend(FakeGpu(devices=args.fake_gpus))
    try:
        from .torch_backend import TorchBackend
    except ImportError as e:
        raise SystemExit(f"error: PyTorch is needed to measure ({e}); pip install torch, or --fake-timer for a test")
    return TorchBackend(device=args.device, warmup=settings.warmup, repeats=settings.repeats,
                        flush_l2=settings.flush_l2, elementwise=args.elementwise, log=_log)


def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def write_outputs(args, model, settings, backend, env, result):
    """The core table, the extra tables that have rows, the model file of a config.json,
    and the provenance; returns {what: file relative to OUT}."""
    files = {"core": os.path.basename(tables.write_core(args.out, model.name, result.core))}
    extras = [("gemm", "gemm.csv", tables.GEMM_COLUMNS, result.gemm),
              ("attention", "attention.csv", tables.ATTENTION_COLUMNS, result.attention),
              ("allreduce", "allreduce.csv", tables.ALLREDUCE_COLUMNS, result.allreduce)]
    for key, name, columns, rows in extras:
        if rows:
            tables.write_extra(args.out, name, columns, rows)
            files[key] = f"{tables.EXTRA_DIR}/{name}"
    if args.model.endswith(".json"):
        # servesim resolves the table's model by name: a config.json's shapes need a model file.
        os.makedirs(os.path.join(args.out, "models"), exist_ok=True)
        with open(os.path.join(args.out, "models", f"{model.name}.yaml"), "w", encoding="utf-8") as f:
            f.write(shapes.servesim_model_yaml(model))
        files["models_yaml"] = f"models/{model.name}.yaml"
    p = provenance.build(model, settings, env, backend.implementation(), result, files,
                         provenance.argv_of_this_run())
    provenance.write(args.out, p, args.gpu)
    return files


def estimate(model, settings):
    """A rough GPU-time estimate of the kernel part of a run: the synthetic roofline's time of
    every point (A100 peaks; newer GPUs are faster) x its runs, plus the L2 flush before each
    timed run and ~30 us of host work per run. Not a measurement; torch.compile start-up
    (tens of seconds) and all-reduce come on top."""
    from .fake_timer import FakeBackend
    settings = copy.copy(settings)
    res = profile.run(model, settings, FakeBackend(), log=lambda _: None)
    kernel_ms = sum(float(r[c]) for r in res.core for c in tables.CORE_COLUMNS if c.startswith("time_stats."))
    kernel_ms += sum(float(r["time_stats.median"]) for r in res.gemm if r["dtype"] == "fp8")
    kernel_ms += sum(float(r["time_stats.median"]) for r in res.attention)
    points = len(res.core) * len(tables.CORE_OPS) + len(res.gemm) // 2 * (1 if settings.fp8 else 0) + len(res.attention)
    flush_s = (512 << 20) / 2.039e12 / 0.8 if settings.flush_l2 else 0.0
    seconds = (kernel_ms * 1e-3 * (settings.warmup + settings.repeats) + points * settings.repeats * flush_s
               + points * (settings.warmup + settings.repeats) * 30e-6)
    return f"estimated kernel time on an A100-class roofline: ~{seconds:.0f} s (plus torch.compile start-up and all-reduce)"


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        model = shapes.load(args.model, args.name)
        for tp in args.tp:
            shapes.shard(model, tp)
    except (OSError, ValueError) as e:  # ShapeError and mini_yaml's errors are ValueErrors
        raise SystemExit(f"error: {e}")
    if not args.dry_run:
        check_out(args, model)
    settings = plan.make_settings(args.tp, quick=args.quick, max_tokens=args.max_tokens,
                                  max_context=model.max_context, repeats=args.repeats, warmup=args.warmup)
    settings.fp8, settings.attention = not args.no_fp8, not args.no_attention
    settings.allreduce, settings.flush_l2 = not args.no_allreduce, not args.no_flush
    if args.dry_run:
        for line in plan.describe(settings, model, [shapes.shard(model, tp) for tp in settings.tps]):
            print(line)
        print(estimate(model, settings))
        return 0
    backend = make_backend(args, settings)
    if backend.synthetic:
        _log("--fake-timer: SYNTHETIC times from a closed-form roofline; nothing is measured")

    result = profile.run(model, settings, backend, log=_log)
    if not result.core:
        raise SystemExit("error: no layer could be timed; see the messages above")
    os.makedirs(args.out, exist_ok=True)
    env = backend.environment()
    if not backend.synthetic:
        env["driver"] = provenance.driver_version()
    files = write_outputs(args, model, settings, backend, env, result)
    if settings.allreduce:
        # After the kernel tables are on disk: a hung or failed collective cannot cost them.
        profile.run_allreduce(model, settings, backend, result, log=_log)
        files = write_outputs(args, model, settings, backend, env, result)
    _log(f"wrote {args.out}: {len(result.core)} core rows, {len(result.gemm)} GEMM, {len(result.attention)} attention, "
         f"{len(result.allreduce)} all-reduce rows in {result.seconds:.0f} s"
         + (f"; {len(result.notes)} notes in PROVENANCE.md" if result.notes else ""))
    models_dir = f" --models-dir {os.path.join(args.out, 'models')}" if "models_yaml" in files else ""
    _log(f"next: servesim calibrate operators --gpu {args.gpu} --data {args.out}{models_dir} "
         f"--out hardware/{args.gpu}-calibrated.yaml")
    return 0
