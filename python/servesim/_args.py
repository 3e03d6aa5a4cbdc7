"""Arguments from Python, checked and turned into what the compiled module takes.

Three kinds of refusal, each naming what it refuses:
- a Python type that cannot be the argument (scenario=42, jobs="2"): TypeError;
- a value that cannot be a scenario value or an argument's value (a set() in a
  dict, jobs=-1, target_rate=0): ConfigError with .key_path and kind "bad_value";
- the rest (unknown keys, out-of-range values, infeasible scenarios) is refused
  by the library itself, as on the command line.
"""
from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Iterable, Mapping
from typing import Any

from . import _servesim
from ._servesim import ConfigError


def bad_value(message: str, key_path: str) -> ConfigError:
    """A ConfigError for a value given from Python (no file, line or column)."""
    e = ConfigError(message)
    e.file, e.line, e.column, e.key_path, e.kind = "", 0, 0, key_path, "bad_value"
    return e


def _type_name(value: Any) -> str:
    return type(value).__name__


def plain_value(value: Any, key_path: str) -> Any:
    """`value` as plain JSON data (str, int, float, bool, None, list, dict), or a
    ConfigError naming key_path. NumPy scalars and arrays become numbers and lists,
    paths their text; NaN and infinities are refused (YAML and servesim take none)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if type(value).__name__ == "bool_":  # numpy.bool_, without importing NumPy
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise bad_value(f"{key_path}: {f} is not a value servesim takes (numbers must be finite)", key_path)
        return f
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise bad_value(f"{key_path}: key {k!r} is a {_type_name(k)}; keys are strings", key_path)
            out[k] = plain_value(v, f"{key_path}.{k}" if key_path else k)
        return out
    if hasattr(value, "tolist") and not isinstance(value, (bytes, bytearray)):  # a NumPy array
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain_value(v, f"{key_path}[{i}]") for i, v in enumerate(value)]
    raise bad_value(f"{key_path}: a {_type_name(value)} ({value!r:.60}) is not a value servesim takes; give a str, "
                    "number, bool, None, list or dict", key_path)


def yaml_text(value: Any, key_path: str) -> str:
    """A Python value as the YAML text --set takes: a str as written (YAML, as on the
    command line), anything else as JSON (which YAML reads as the same value)."""
    if isinstance(value, str):
        return value
    return json.dumps(plain_value(value, key_path))


def scenario_input(scenario: Any) -> _servesim.ScenarioInput:
    """A path (str or os.PathLike naming a file), YAML text, or a mapping."""
    inp = _servesim.ScenarioInput()
    if isinstance(scenario, Mapping):
        # JSON is YAML: the document, numbers written exactly. An error's line and
        # column count in json.dumps(scenario, indent=2); its key path is the dict's own.
        inp.text = json.dumps(plain_value(scenario, ""), indent=2)
        inp.origin = "<scenario dict>"
    elif isinstance(scenario, os.PathLike):
        inp.path = os.fspath(scenario)
        if not isinstance(inp.path, str):
            raise TypeError("scenario: give the path as text (str or pathlib.Path), not bytes")
    elif isinstance(scenario, str):
        if not scenario.strip():
            raise bad_value("scenario: empty; give a scenario file's path, YAML text or a dict", "scenario")
        # YAML text of a scenario is a mapping, so it has a colon; a one-line string
        # without one is a path (a missing file is then said to be missing).
        looks_like_file = "\n" not in scenario and (scenario.endswith((".yaml", ".yml")) or ":" not in scenario
                                                    or os.path.isfile(scenario))
        if looks_like_file:
            inp.path = scenario
        else:
            inp.text = scenario
            inp.origin = "<scenario string>"
    else:
        raise TypeError(f"scenario: expected a path (str or os.PathLike), YAML text or a dict, "
                        f"got {_type_name(scenario)}")
    return inp


def _assignment(text: str, where: str) -> str:
    key, eq, _ = text.partition("=")
    if not eq or not key.strip():
        raise bad_value(f"{where}: {text!r} is not an assignment KEY.PATH=VALUE "
                        "(e.g. 'workload.arrival.rate=12')", key.strip())
    return text


def sets(set: Any) -> list[str]:
    """`set` as --set assignments: None; one "key=value" string; a mapping
    {key: value}; or an iterable of "key=value" strings."""
    if set is None:
        return []
    if isinstance(set, str):
        return [_assignment(set, "set")]  # one assignment, not its characters
    if isinstance(set, Mapping):
        out = []
        for key, value in set.items():
            if not isinstance(key, str):
                raise TypeError(f"set: keys are key paths (str), got {key!r} ({_type_name(key)})")
            if not key.strip() or "=" in key:
                raise bad_value(f"set: {key!r} is not a key path (e.g. 'workload.arrival.rate')", key)
            out.append(f"{key}={yaml_text(value, key)}")
        return out
    if isinstance(set, Iterable) and not isinstance(set, (bytes, bytearray)):
        out = []
        for i, item in enumerate(set):
            if not isinstance(item, str):
                raise TypeError(f"set[{i}]: expected a 'key=value' string, got {_type_name(item)}; "
                                "give set as a dict {key: value} for other values")
            out.append(_assignment(item, f"set[{i}]"))
        return out
    raise TypeError(f"set: expected a dict {{key: value}}, a 'key=value' string or a list of them, "
                    f"got {_type_name(set)}")


def axes(vary: Any) -> list[tuple[str, list[str]]]:
    """{key: values} -> [(key, [YAML texts])] in order. values: a list (or any
    iterable), one number, or the CLI's text ("2:24:2", "bf16,fp8")."""
    if not isinstance(vary, Mapping):
        raise TypeError(f"vary: expected a dict {{key: values}}, got {_type_name(vary)}")
    if not vary:
        raise bad_value("vary: nothing to sweep; give vary={key: values}", "vary")
    out = []
    for key, values in vary.items():
        if not isinstance(key, str):
            raise TypeError(f"vary: keys are key paths (str), got {key!r} ({_type_name(key)})")
        if isinstance(values, str):
            out.append(_servesim.parse_vary(f"{key}={values}"))
        elif isinstance(values, (numbers.Number, Mapping)) or values is None:
            out.append((key, [yaml_text(values, key)]))  # one value
        elif isinstance(values, Iterable):
            texts = [yaml_text(v, f"{key}[{i}]") for i, v in enumerate(values)]
            if not texts:
                raise bad_value(f"vary: {key}: no values", key)
            out.append((key, texts))
        else:
            raise TypeError(f"vary[{key!r}]: expected a list of values or the CLI's text "
                            f"('2:24:2', 'bf16,fp8'), got {_type_name(values)}")
    return out


def integer(name: str, value: Any, minimum: int, key_path: str | None = None, why: str = "") -> int:
    """An int argument (bool and float refused), at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {_type_name(value)} ({value!r:.40})")
    v = int(value)
    if v < minimum:
        raise bad_value(f"{name}: {v} is below {minimum}{why}", key_path or name)
    return v


def number(name: str, value: Any, key_path: str | None = None) -> float:
    """A finite float argument (int accepted, bool refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {_type_name(value)} ({value!r:.40})")
    v = float(value)
    if not math.isfinite(v):
        raise bad_value(f"{name}: {v} is not a finite number", key_path or name)
    return v


def flag(name: str, value: Any) -> bool:
    """A bool argument (True/False or a NumPy bool; not 0/1 or text)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{name}: expected True or False, got {_type_name(value)} ({value!r:.40})")


def text(name: str, value: Any) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a str, got {_type_name(value)} ({value!r:.40})")
    return value


def texts(name: str, value: Any) -> list[str]:
    """One string (one item, never its characters) or an iterable of strings."""
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [text(name, value)]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping)):
        return [text(f"{name}[{i}]", v) for i, v in enumerate(value)]
    raise TypeError(f"{name}: expected a str or a list of str, got {_type_name(value)}")


def integers(name: str, value: Any, minimum: int, key_path: str) -> list[int]:
    """One int or an iterable of ints, each at least `minimum`."""
    if value is None:
        return []
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return [integer(name, value, minimum, key_path)]
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Mapping)):
        return [integer(f"{name}[{i}]", v, minimum, key_path) for i, v in enumerate(value)]
    raise TypeError(f"{name}: expected an int or a list of int, got {_type_name(value)}")
