"""A reader for the YAML subset servesim's model files use (models/*.yaml).

Why not PyYAML: a rented GPU box has torch but often not PyYAML, and the project's
tests run on Debian's bare python3. Model files are block mappings of scalars
(`key: value  # comment`), nested by indentation, and block lists of one-line flow
mappings of scalars (`- {intermediate_size: 28672, layers: 49}`: mlp.layer_widths); no
other lists, anchors or flow style. Anything outside that subset raises ValueError
naming the line, rather than being misread.
"""


def _scalar(text, where):
    t = text.strip()
    if t == "" or t in ("null", "~"):
        return None
    if t[0] in "\"'":
        q = t[0]
        if len(t) < 2 or t[-1] != q:
            raise ValueError(f"{where}: unterminated quoted string {t!r}")
        return t[1:-1]
    if t[0] in "[{&*!|>":
        raise ValueError(f"{where}: {t!r}: flow style, anchors and block scalars are not supported")
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t


def _flow_map(text, where):
    """`{a: 1, b: x}` (scalars only, no nesting) as a dict."""
    t = text.strip()
    if not (t.startswith("{") and t.endswith("}")) or "{" in t[1:-1] or "[" in t[1:-1]:
        raise ValueError(f"{where}: list items must be one-line flow mappings of scalars, '- {{key: value, ...}}'")
    out = {}
    for part in t[1:-1].split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition(":")
        key = key.strip().strip("\"'")
        if not sep or not key:
            raise ValueError(f"{where}: expected 'key: value' in {t!r}")
        if key in out:
            raise ValueError(f"{where}: duplicate key {key!r}")
        out[key] = _scalar(value, where)
    return out


def _strip_comment(line):
    """The line without a trailing `# comment` (a '#' inside quotes is kept)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def loads(text, source="<yaml>"):
    """Parses `text` into nested dicts of scalars."""
    root = {}
    stack = [(-1, root)]  # (indent of the mapping's keys, mapping)
    pending = None  # (indent, dict, parent, key) of a `key:` with no value, waiting for its children
    items = None  # (indent, list) of the block list being read
    for n, raw in enumerate(text.splitlines(), 1):
        where = f"{source}:{n}"
        line = _strip_comment(raw).rstrip()
        if not line.strip() or line.strip() == "---":
            continue
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise ValueError(f"{where}: tab in indentation")
        indent = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- ") or body == "-":
            if pending is not None and indent > pending[0]:  # the first item of `key:`'s list
                items = (indent, [])
                pending[2][pending[3]] = items[1]
                pending = None
            elif items is None or indent != items[0]:
                raise ValueError(f"{where}: a list item outside a list")
            items[1].append(_flow_map(body[1:], where))
            continue
        items = None
        if pending is not None:
            if indent > pending[0]:
                stack.append((indent, pending[1]))
            pending = None
        while stack and indent < stack[-1][0]:
            stack.pop()
        if not stack or indent != stack[-1][0] and stack[-1][0] != -1:
            raise ValueError(f"{where}: inconsistent indentation")
        if stack[-1][0] == -1:
            stack[-1] = (indent, root)
        key, sep, value = body.partition(":")
        if not sep or not key.strip():
            raise ValueError(f"{where}: expected 'key: value'")
        key = key.strip().strip("\"'")
        mapping = stack[-1][1]
        if key in mapping:
            raise ValueError(f"{where}: duplicate key {key!r}")
        if value.strip() == "":
            child = {}
            mapping[key] = child
            pending = (indent, child, mapping, key)
        else:
            mapping[key] = _scalar(value, where)
    return root


def load(path):
    with open(path, encoding="utf-8") as f:
        return loads(f.read(), path)
