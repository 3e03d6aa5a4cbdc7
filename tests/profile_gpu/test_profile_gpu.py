#!/usr/bin/env python3
"""Unit tests of tools/profile-gpu's pure parts (no GPU, no PyTorch, stdlib only).

usage: test_profile_gpu.py REPO_ROOT   (ctest: profile_gpu_units)
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(REPO, "tools", "profile-gpu")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, TOOL)

from profgpu import cli, fake_timer, mini_yaml, plan, profile, shapes, tables  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def model_path(name):
    return os.path.join(REPO, "models", f"{name}.yaml")


class MiniYamlTest(unittest.TestCase):
    def test_reads_every_catalog_model(self):
        # Every model file of the catalog is inside the subset (nested scalars with comments).
        for f in sorted(os.listdir(os.path.join(REPO, "models"))):
            doc = mini_yaml.load(os.path.join(REPO, "models", f))
            self.assertEqual(doc["schema_version"], 1, f)
            self.assertIsInstance(doc["attention"]["heads"], int, f)

    def test_scalars_comments_and_nesting(self):
        doc = mini_yaml.loads('a: 1  # one\nb:\n  c: "x # not a comment"\n  d: true\ne: 2.5\nf: null\n')
        self.assertEqual(doc, {"a": 1, "b": {"c": "x # not a comment", "d": True}, "e": 2.5, "f": None})

    def test_lists_of_flow_mappings(self):
        # mlp.layer_widths' form: a block list of one-line mappings of scalars.
        doc = mini_yaml.loads("mlp:\n  gated: true\n  layer_widths:\n    - {intermediate_size: 28672, layers: 49}  # x\n"
                              "    - {linear: true, layers: 2}\nvocab_size: 5\n")
        self.assertEqual(doc, {"mlp": {"gated": True, "layer_widths": [{"intermediate_size": 28672, "layers": 49},
                                                                       {"linear": True, "layers": 2}]},
                               "vocab_size": 5})

    def test_rejects_what_it_cannot_read(self):
        for text in ("a:\n  - 1\n", "a: [1, 2]\n", "a: 1\na: 2\n", "a:\n    b: 1\n  c: 2\n", "just text\n",
                     "a:\n  - {b: {c: 1}}\n", "- {a: 1}\n", "a:\n  - {b: 1}\n    - {b: 2}\n"):
            with self.assertRaises(ValueError, msg=text):
                mini_yaml.loads(text)


class ShapesTest(unittest.TestCase):
    def test_servesim_yaml(self):
        m = shapes.load(model_path("llama-3.1-8b"))
        self.assertEqual((m.name, m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab),
                         ("llama-3.1-8b", 32, 4096, 32, 8, 128, 14336, 128256))
        self.assertTrue(m.gated_mlp)
        self.assertFalse(m.qkv_bias)

    def test_rejects_layers_of_differing_shapes(self):
        # A NAS-pruned model (mlp.layer_widths): the profiler times one layer shape per model.
        with self.assertRaisesRegex(shapes.ShapeError, "layers differ in shape"):
            shapes.load(model_path("llama-3.3-nemotron-super-49b"))

    def test_shards_follow_servesim(self):
        m = shapes.load(model_path("llama-3.1-8b"))
        self.assertEqual([(s.heads, s.kv_heads, s.ffn) for s in (shapes.shard(m, t) for t in (1, 2, 4, 8, 16))],
                         [(32, 8, 14336), (16, 4, 7168), (8, 2, 3584), (4, 1, 1792), (2, 1, 896)])
        for bad in (3, 64, 0):
            with self.assertRaises(shapes.ShapeError):
                shapes.shard(m, bad)

    def test_gemm_shapes_are_the_provenance_formulas(self):
        # data/operator_timings/PROVENANCE.md: QKV N = (n_head + 2 n_kv_head) head_dim / k, o_proj K = n_embd / k,
        # gate+up N = 2 n_expanded_embd / k, down K = n_expanded_embd / k.
        m = shapes.load(model_path("llama-3.1-70b"))
        g = {op: (k, n) for op, k, n in shapes.shard(m, 4).gemms(True)}
        self.assertEqual(g, {"attn_pre_proj": (8192, (64 + 16) * 128 // 4), "attn_post_proj": (8192 // 4, 8192),
                             "mlp_up_proj": (8192, 2 * 28672 // 4), "mlp_down_proj": (28672 // 4, 8192)})

    def test_hf_config(self):
        m = shapes.load(os.path.join(FIXTURES, "config.json"))
        self.assertEqual((m.name, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn, m.layers),
                         ("tiny-gqa-1b", 2048, 16, 4, 128, 8192, 16))
        self.assertEqual(shapes.load(os.path.join(FIXTURES, "config.json"), "mine").name, "mine")

    def test_real_configs_give_the_catalog_shapes(self):
        # Hugging Face config.json files vendored for servesim's importer vs the catalog's model files.
        pairs = {"llama-3.1-8b-instruct": "llama-3.1-8b", "llama-2-7b-hf": "llama-2-7b",
                 "llama-2-70b-hf": "llama-2-70b", "codellama-34b-instruct-hf": "codellama-34b",
                 "mistral-nemo-instruct-2407": "mistral-nemo-12b", "qwen2.5-7b-instruct": "qwen2.5-7b",
                 "qwen3-14b": "qwen3-14b", "yi-34b": "yi-34b"}
        fields = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "gated_mlp", "qkv_bias")
        for cfg, name in pairs.items():
            a = shapes.load(os.path.join(REPO, "tests", "fixtures", "model_configs", cfg, "config.json"))
            b = shapes.load(model_path(name))
            self.assertEqual([getattr(a, f) for f in fields], [getattr(b, f) for f in fields], cfg)
        with self.assertRaises(shapes.ShapeError):
            shapes.load(os.path.join(REPO, "tests", "fixtures", "model_configs", "mixtral-8x7b-v0.1", "config.json"))

    def test_generated_model_yaml_reads_back(self):
        m = shapes.load(os.path.join(FIXTURES, "config.json"))
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "m.yaml")
            with open(path, "w") as f:
                f.write(shapes.servesim_model_yaml(m))
            back = shapes.load(path)
            self.assertEqual((back.name, back.hidden, back.heads, back.kv_heads, back.head_dim, back.ffn),
                             (m.name, m.hidden, m.heads, m.kv_heads, m.head_dim, m.ffn))
        finally:
            shutil.rmtree(d)

    def test_moe_and_mla_are_refused(self):
        for name in ("mixtral-8x7b", "deepseek-v3"):
            with self.assertRaises(shapes.ShapeError, msg=name):
                shapes.load(model_path(name))

    def test_yaml_name_must_match(self):
        with self.assertRaises(shapes.ShapeError):
            shapes.load(model_path("llama-3.1-8b"), "other")


class PlanTest(unittest.TestCase):
    def test_quick_is_smaller(self):
        full, quick = plan.make_settings([1, 2]), plan.make_settings([1, 2], quick=True)
        self.assertLess(len(quick.tokens), len(full.tokens))
        self.assertLess(quick.repeats, full.repeats)
        # The tokens split holds out every 4th distinct value: enough values for held-out points.
        self.assertGreaterEqual(len(quick.tokens), 8)

    def test_limits(self):
        s = plan.make_settings([1], max_tokens=100, max_context=4096)
        self.assertEqual(max(s.tokens), 96)
        self.assertLessEqual(max(s.decode_context), 4096)
        self.assertLessEqual(max(s.prefill_lengths), 4096)

    def test_decode_points_fit_budget(self):
        s = plan.make_settings([1])
        pts = plan.decode_points(s, kv_heads=8, head_dim=128)
        self.assertTrue(pts)
        for b, c in pts:
            self.assertLessEqual(2 * b * c * 8 * 128 * 2, s.kv_budget_bytes)
        self.assertNotIn((512, 32768), pts)  # 34 GB of KV

    def test_world_sizes(self):
        self.assertEqual(plan.world_sizes(1, [1, 2, 4, 8]), [])
        self.assertEqual(plan.world_sizes(4, [1, 2, 4, 8]), [2, 4])


class TablesTest(unittest.TestCase):
    def test_core_columns_are_the_shipped_tables(self):
        # The SAME header as the Vidur extracts servesim already reads.
        for f in sorted(os.listdir(os.path.join(REPO, "data", "operator_timings", "a100"))):
            with open(os.path.join(REPO, "data", "operator_timings", "a100", f)) as fh:
                self.assertEqual(fh.readline().strip().split(","), tables.CORE_COLUMNS, f)

    def test_fmt_ms(self):
        self.assertEqual(tables.fmt_ms(0.0001105), "0.1105")
        self.assertEqual(tables.fmt_ms(2e-6), "0.002")
        self.assertEqual(tables.fmt_ms(1e-12), "0.000001")  # never 0: the fit divides by it
        self.assertEqual(tables.fmt_ms(None), "")

    def test_core_row_needs_every_op(self):
        m = shapes.load(model_path("llama-2-7b"))
        times = {op: 1e-5 for op in tables.CORE_OPS}
        self.assertEqual(tables.core_row(1, 8, m, times)["use_gated_mlp"], "True")
        del times["add"]
        with self.assertRaises(ValueError):
            tables.core_row(1, 8, m, times)


class _Failing(fake_timer.FakeBackend):
    """Fails rope at 4 tokens, as an out-of-memory or unsupported kernel would."""
    def rope(self, tokens, *a):
        return None if tokens == 4 else super().rope(tokens, *a)


class ProfileTest(unittest.TestCase):
    def settings(self):
        s = plan.make_settings([1, 2], quick=True)
        s.tokens = [1, 4, 16]
        return s

    def test_rows_per_tp_and_token(self):
        m = shapes.load(model_path("llama-3.1-8b"))
        res = profile.run(m, self.settings(), fake_timer.FakeBackend(), log=lambda _: None)
        self.assertEqual([(r["num_tensor_parallel_workers"], r["num_tokens"]) for r in res.core],
                         [("1", "1"), ("1", "4"), ("1", "16"), ("2", "1"), ("2", "4"), ("2", "16")])
        self.assertEqual(len(res.gemm), 2 * 3 * 4 * 2)  # tp x tokens x GEMMs x {bf16, fp8}
        self.assertTrue(any(r["kind"] == "prefill" for r in res.attention))
        profile.run_allreduce(m, self.settings(), fake_timer.FakeBackend(), res, log=lambda _: None)
        self.assertEqual(res.allreduce, [])  # one (fake) GPU
        self.assertTrue(any("all-reduce not timed" in n for n in res.notes))

    def test_allreduce_rows_per_group_and_launch_mode(self):
        m = shapes.load(model_path("llama-3.1-8b"))
        res = profile.Result()
        backend = fake_timer.FakeBackend(fake_timer.FakeGpu(devices=4))
        profile.run_allreduce(m, self.settings(), backend, res, log=lambda _: None)
        # TP degrees 1, 2 on 4 GPUs: one group of 2; 3 token counts x {eager, cuda_graph}.
        self.assertEqual([(r["world_size"], r["launch"], r["num_tokens"]) for r in res.allreduce],
                         [(2, "eager", 1), (2, "eager", 4), (2, "eager", 16),
                          (2, "cuda_graph", 1), (2, "cuda_graph", 4), (2, "cuda_graph", 16)])
        self.assertEqual(res.allreduce[0]["message_bytes"], 4096 * 2)

    def test_a_failed_op_drops_its_row_with_a_note(self):
        m = shapes.load(model_path("llama-3.1-8b"))
        res = profile.run(m, self.settings(), _Failing(), log=lambda _: None)
        self.assertEqual(len(res.core), 4)
        self.assertTrue(any("num_tokens=4" in n and "attn_rope" in n for n in res.notes))

    def test_fake_gemm_closed_form(self):
        # M=1, K=N=4096 bf16 on the fake: memory-bound. bytes = (4096*4096 + 4096 + 4096)*2 = 33570816;
        # 33570816 / (2.039e12 * 0.85) = 19.370 us, + 4 us kernel overhead = 23.370 us.
        t = fake_timer.FakeBackend().gemm(1, 4096, 4096)
        self.assertAlmostEqual(t * 1e6, 23.370, places=2)


class CliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_cli(self, *args):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = cli.main(list(args))
        return rc, err.getvalue()

    def test_bad_tp(self):
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            cli.build_parser().parse_args(["--model", "x", "--out", "y", "--tp", "1,two"])
        with self.assertRaises(SystemExit) as e:
            self.run_cli("--model", model_path("llama-3.1-8b"), "--out", self.tmp, "--tp", "3", "--fake-timer")
        self.assertIn("tp=3", str(e.exception))

    def test_fake_run_writes_tables_and_provenance(self):
        out = os.path.join(self.tmp, "o")
        rc, err = self.run_cli("--model", model_path("llama-3.1-8b"), "--out", out, "--tp", "1,2", "--quick",
                               "--fake-timer", "--fake-gpus", "2")
        self.assertEqual(rc, 0)
        self.assertIn("SYNTHETIC", err)
        rows = tables.read_csv(os.path.join(out, "llama-3.1-8b.csv"))
        self.assertEqual(len(rows), 2 * len(plan.QUICK_TOKENS))
        self.assertEqual(list(rows[0].keys()), tables.CORE_COLUMNS)
        # Only the core table is a *.csv beside it: servesim reads every one as a model's table.
        self.assertEqual([f for f in os.listdir(out) if f.endswith(".csv")], ["llama-3.1-8b.csv"])
        for name in ("gemm.csv", "attention.csv", "allreduce.csv"):
            self.assertTrue(os.path.exists(os.path.join(out, "extra", name)), name)
        p = json.loads(read(os.path.join(out, "provenance.json")))
        self.assertTrue(p["synthetic"])
        self.assertEqual(p["settings"]["tp"], [1, 2])
        self.assertIn("SYNTHETIC", read(os.path.join(out, "PROVENANCE.md")))
        with self.assertRaises(SystemExit):  # no silent overwrite
            self.run_cli("--model", model_path("llama-3.1-8b"), "--out", out, "--fake-timer", "--quick")

    def test_config_json_writes_a_model_file(self):
        out = os.path.join(self.tmp, "o")
        self.run_cli("--model", os.path.join(FIXTURES, "config.json"), "--out", out, "--tp", "1,4", "--quick",
                     "--fake-timer", "--no-attention")
        self.assertTrue(os.path.exists(os.path.join(out, "tiny-gqa-1b.csv")))
        self.assertEqual(shapes.load(os.path.join(out, "models", "tiny-gqa-1b.yaml")).kv_heads, 4)

    def test_dry_run_needs_no_backend(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = cli.main(["--model", model_path("llama-3.1-8b"), "--out", os.path.join(self.tmp, "none"),
                           "--dry-run", "--quick", "--tp", "1,2"])
        self.assertEqual(rc, 0)
        self.assertIn("TP 2: 14 rows x 13 kernels", out.getvalue())
        self.assertIn("estimated kernel time", out.getvalue())
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "none")))

    def test_fake_output_refused_under_data(self):
        with self.assertRaises(SystemExit) as e:
            self.run_cli("--model", model_path("llama-3.1-8b"), "--out",
                         os.path.join(REPO, "data", "operator_timings", "fake"), "--fake-timer")
        self.assertIn("synthetic", str(e.exception))


class NoTorchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_pure_modules_import_without_torch(self):
        # torch set to None in sys.modules makes any `import torch` fail, as on a machine without it.
        code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, sys.argv[1]);"
                "import profgpu.cli, profgpu.profile, profgpu.fake_timer, profgpu.provenance;"
                "sys.exit(profgpu.cli.main(['--model', sys.argv[2], '--out', sys.argv[3], '--quick', '--fake-timer']))")
        p = subprocess.run([sys.executable, "-c", code, TOOL, model_path("llama-2-7b"), self.tmp],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_measuring_without_torch_says_so(self):
        code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, sys.argv[1]);"
                "import profgpu.cli; profgpu.cli.main(['--model', sys.argv[2], '--out', sys.argv[3]])")
        p = subprocess.run([sys.executable, "-c", code, TOOL, model_path("llama-2-7b"), self.tmp],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("PyTorch is needed", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
