"""Layer shapes of a dense transformer, from a servesim model YAML or a Hugging Face
config.json, and the shard one tensor-parallel rank holds.

The shard rules are servesim's (sim/cost/parallelism.cpp: heads / tp, max(1, kv_heads / tp),
ffn / tp) so that a profiled row is the layer the cost model predicts; the GEMM shapes
are those documented in data/operator_timings/PROVENANCE.md (Vidur's mlp.csv columns).
"""
import json
import os
from dataclasses import dataclass

from . import mini_yaml


@dataclass(frozen=True)
class ModelShape:
    name: str            # servesim model name: the core table is <name>.csv
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int             # MLP intermediate size (per gate/up branch)
    vocab: int
    gated_mlp: bool
    qkv_bias: bool
    max_context: int
    source: str          # the file the shapes were read from
    hf_id: str = ""
    architecture: str = ""


@dataclass(frozen=True)
class ShardShape:
    tp: int
    heads: int           # query heads on one rank
    kv_heads: int        # KV heads on one rank (replicated when tp > kv_heads)
    head_dim: int
    hidden: int
    ffn: int             # intermediate size on one rank

    def gemms(self, gated):
        """(name, K, N) of the four GEMMs of one layer shard, in Vidur's op names."""
        qkv_n = (self.heads + 2 * self.kv_heads) * self.head_dim
        return [
            ("attn_pre_proj", self.hidden, qkv_n),
            ("attn_post_proj", self.heads * self.head_dim, self.hidden),
            ("mlp_up_proj", self.hidden, (2 if gated else 1) * self.ffn),
            ("mlp_down_proj", self.ffn, self.hidden),
        ]


class ShapeError(ValueError):
    pass


def shard(model, tp):
    """The layer shard of one rank at TP degree tp; the same checks as servesim's."""
    if tp < 1:
        raise ShapeError(f"tp={tp}: must be >= 1")
    if model.heads % tp:
        raise ShapeError(f"tp={tp} does not divide {model.heads} attention heads of {model.name}")
    if tp > model.kv_heads and tp % model.kv_heads:
        raise ShapeError(f"tp={tp} is neither a divisor nor a multiple of {model.kv_heads} KV heads of {model.name}")
    if tp <= model.kv_heads and model.kv_heads % tp:
        raise ShapeError(f"tp={tp} does not divide {model.kv_heads} KV heads of {model.name}")
    return ShardShape(tp=tp, heads=model.heads // tp, kv_heads=max(1, model.kv_heads // tp),
                      head_dim=model.head_dim, hidden=model.hidden, ffn=model.ffn // tp)


def _require(d, key, where):
    if key not in d or d[key] is None:
        raise ShapeError(f"{where}: missing '{key}'")
    return d[key]


def _positive_int(v, key, where):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ShapeError(f"{where}: '{key}' must be a positive integer, got {v!r}")
    return v


def _reject_unsupported(where, moe, mla):
    # servesim's operator fit compares dense layers only (operator_fit.cpp rejects MoE and MLA).
    if moe:
        raise ShapeError(f"{where}: mixture-of-experts model; the profiler (and `servesim calibrate operators`) "
                         "covers dense layers only")
    if mla:
        raise ShapeError(f"{where}: multi-head latent attention (MLA); the profiler covers standard attention only")


def from_servesim_yaml(path):
    doc = mini_yaml.load(path)
    att = doc.get("attention") or {}
    mlp = doc.get("mlp") or {}
    _reject_unsupported(path, "moe" in doc, "mla" in doc)
    # NAS-pruned models (mlp.layer_widths, layers without attention or an MLP): one layer shape
    # per model is what the profiler times and `servesim calibrate operators` compares.
    if "layer_widths" in mlp or "attention_layers" in doc or "mlp_layers" in doc:
        raise ShapeError(f"{path}: its layers differ in shape (mlp.layer_widths, attention_layers or mlp_layers); "
                         "the profiler covers models whose layers are all alike")
    hidden = _positive_int(_require(doc, "hidden_size", path), "hidden_size", path)
    heads = _positive_int(_require(att, "heads", path + " attention"), "attention.heads", path)
    return ModelShape(
        name=str(_require(doc, "name", path)),
        layers=_positive_int(_require(doc, "layers", path), "layers", path),
        hidden=hidden,
        heads=heads,
        kv_heads=_positive_int(att.get("kv_heads", heads), "attention.kv_heads", path),
        head_dim=_positive_int(att.get("head_dim", hidden // heads), "attention.head_dim", path),
        ffn=_positive_int(_require(mlp, "intermediate_size", path + " mlp"), "mlp.intermediate_size", path),
        vocab=_positive_int(_require(doc, "vocab_size", path), "vocab_size", path),
        gated_mlp=bool(mlp.get("gated", True)),
        qkv_bias=bool(att.get("qkv_bias", False)),
        max_context=_positive_int(doc.get("max_context", 4096), "max_context", path),
        source=path, hf_id=str(doc.get("hf_id") or ""), architecture=str(doc.get("architecture") or ""))


def default_name_for_config(path, cfg):
    """A model name for a config.json: its repository's last part, lower case
    ("meta-llama/Llama-3.1-8B" -> "llama-3.1-8b"), else the folder holding the file."""
    src = cfg.get("_name_or_path") or os.path.basename(os.path.dirname(os.path.abspath(path)))
    name = src.rstrip("/").split("/")[-1].lower()
    return "".join(c if c.isalnum() or c in "-._" else "-" for c in name) or "model"


def from_hf_config(path, name=None):
    """Shapes from a Hugging Face config.json, read as servesim's importer does
    (sim/model/hf_import.cpp: defaults for num_key_value_heads, head_dim, hidden_act)."""
    with open(path, encoding="utf-8") as f:
        cfg = json.load(f)
    if "text_config" in cfg and "num_hidden_layers" not in cfg:
        cfg = cfg["text_config"]  # multimodal wrappers keep the language model here
    moe = any(k in cfg for k in ("num_local_experts", "n_routed_experts")) or (cfg.get("num_experts") or 0) > 0
    _reject_unsupported(path, moe, "kv_lora_rank" in cfg)
    heads = _positive_int(_require(cfg, "num_attention_heads", path), "num_attention_heads", path)
    hidden = _positive_int(_require(cfg, "hidden_size", path), "hidden_size", path)
    arch = (cfg.get("architectures") or [""])[0]
    act = cfg.get("hidden_act", "silu")
    return ModelShape(
        name=name or default_name_for_config(path, cfg),
        layers=_positive_int(_require(cfg, "num_hidden_layers", path), "num_hidden_layers", path),
        hidden=hidden,
        heads=heads,
        kv_heads=_positive_int(cfg.get("num_key_value_heads") or heads, "num_key_value_heads", path),
        head_dim=_positive_int(cfg.get("head_dim") or hidden // heads, "head_dim", path),
        ffn=_positive_int(_require(cfg, "intermediate_size", path), "intermediate_size", path),
        vocab=_positive_int(_require(cfg, "vocab_size", path), "vocab_size", path),
        gated_mlp=act in ("silu", "swiglu", "gelu_pytorch_tanh", "geglu"),
        qkv_bias=bool(cfg.get("attention_bias", arch in ("Qwen2ForCausalLM",))),
        max_context=_positive_int(cfg.get("max_position_embeddings") or 4096, "max_position_embeddings", path),
        source=path, hf_id=str(cfg.get("_name_or_path") or ""), architecture=arch)


def load(path, name=None):
    """A model YAML (servesim) or a config.json (Hugging Face), by extension."""
    if path.endswith(".json"):
        return from_hf_config(path, name)
    m = from_servesim_yaml(path)
    if name and name != m.name:
        # The core table's file name is the model name servesim resolves; a YAML names itself.
        raise ShapeError(f"{path}: --name {name!r} differs from the file's name {m.name!r}")
    return m


def servesim_model_yaml(m):
    """A servesim model file for `m` (written beside the tables when the shapes came from a
    config.json, so that `servesim calibrate operators --models-dir` can resolve the name)."""
    b = "true" if m.gated_mlp else "false"
    return "\n".join([
        f"# Written by tools/profile-gpu from {os.path.basename(m.source)}; the shapes the profiler timed.",
        "schema_version: 1",
        f"name: {m.name}",
        *([f"hf_id: \"{m.hf_id}\""] if m.hf_id else []),
        *([f"architecture: \"{m.architecture}\""] if m.architecture else []),
        f"layers: {m.layers}",
        f"hidden_size: {m.hidden}",
        "attention:",
        f"  heads: {m.heads}",
        f"  kv_heads: {m.kv_heads}",
        f"  head_dim: {m.head_dim}",
        f"  qkv_bias: {'true' if m.qkv_bias else 'false'}",
        "mlp:",
        f"  intermediate_size: {m.ffn}",
        f"  gated: {b}",
        f"vocab_size: {m.vocab}",
        f"max_context: {m.max_context}",
        "native_dtype: bf16",
        "",
    ])
