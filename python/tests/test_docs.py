"""The printed outputs of the Python docs are what this build prints: the examples
in the docstrings (what help() shows) and every ```python block of docs/python.md
run here as doctests, from the repository root. A change that moves a number
either updates the docs or fails this test."""
import doctest
import re

import pytest

import servesim
from servesim import _api, _results

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.fixture(autouse=True)
def in_root(root, monkeypatch):
    monkeypatch.chdir(root)


def run_examples(name, text, globs):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, globs, name, name, 0)
    assert test.examples, f"{name}: no examples"
    for example in test.examples:
        if ".plot(" in example.source:  # needs matplotlib and prints an Axes: not checked
            example.options[doctest.SKIP] = True
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, clear_globs=False)
    globs.update(test.globs)  # DocTest ran on a copy: later blocks see what this one made
    return runner.summarize(verbose=False).failed


@pytest.mark.parametrize("module", [_api, _results])
def test_docstring_examples(module):
    finder = doctest.DocTestFinder()
    tests = [t for t in finder.find(module, globs={"servesim": servesim}) if t.examples]
    assert tests
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for t in tests:
        runner.run(t)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} docstring examples print something else (see above)"


def test_docs_python_md_shell_example(root):
    # The first shell block prints the quickstart's TTFT p99 ("# VALUE" under the command).
    text = (root / "docs" / "python.md").read_text()
    printed = re.search(r"print\(servesim\.run\('scenarios/quickstart.yaml'\)\.ttft_ms\.p99\)\"\n# (\S+)", text)
    assert printed, "docs/python.md: the install block's one-liner and its output are missing"
    assert float(printed.group(1)) == servesim.run("scenarios/quickstart.yaml").ttft_ms.p99


def test_docs_python_md_examples(root):
    text = (root / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 3
    globs = {}  # shared: a later block uses what an earlier one made, as a reader would
    failed = [i + 1 for i, block in enumerate(blocks)
              if ">>>" in block and run_examples(f"docs/python.md block {i + 1}", block, globs)]
    assert not failed, f"docs/python.md blocks {failed} print something else (see above)"
