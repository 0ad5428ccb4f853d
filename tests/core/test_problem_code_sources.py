"""docs/problems.md checked against the source, statically: every problem code the source of
core/, plugins/ and formats/ creates is listed there, and every listed code is created
somewhere (issue 21 item 3: codes are given at the place of the fault, so they can be read
from the code without running it).

What counts as creating a code (an AST walk, no regex over sentences):

* a ``code=`` keyword of any call, a ``code`` parameter's default, a ``code`` field's
  default, an assignment to a variable called ``code``;
* the positional argument that fills a parameter or dataclass field called ``code`` of a
  function or class defined in these folders (``report_warning(code, message)``,
  ``Damage(path, offset, reason, length, data, code)``, ``_Damaged(start, code, reason)``...);
* a writer's ``warn(code, message)`` (its context's ``report_warning``), the WARC record
  builder's ``notes.append((code, message))``;
* a writer's refused-record reason and a framer's warning that start with their code
  (``"unwritable-kind: ARC v1 cannot hold ..."``; not an exception's message or a log line,
  which may start with a plugin's name: ``"exact-dedup: record 3 ..."``);
* the positional argument of a class's ``__new__`` called ``code`` (``Note("date-cut", ...)``).

A value is a string literal, a module-level constant holding one (``TRUNCATED``,
``EMPTY_INPUT``), or either branch of a conditional expression of them.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from crawlmill.core.problems import is_code

from tests.conftest import ROOT, listed_codes

FOLDERS = ("core", "plugins", "formats", "algorithms")
#: a sentence that starts with its code: ``"unwritable-kind: ..."`` (a one-word prefix only
#: when it is a listed code, so that ``"note: ..."`` is not taken for one).
PREFIXED = re.compile(r"([a-z][a-z0-9]*(?:-[a-z0-9]+)*): ")
#: functions called with a code first that are parameters, not definitions (a writer's
#: ``warn``: its context's ``report_warning``).
WARN_CALLS = {"warn", "_warn"}
#: listed codes no literal of the source creates, each with the path that makes it.
OTHER_PATHS: dict[str, str] = {
    "detection-failed": "core/inputs.py: a (path, message, DETECTION_FAILED) warning tuple",
    "forced-reader": "core/file_detection.py: a (path, message, FORCED_READER) warning tuple",
}
#: one xdist worker runs these tests, so the walk (:func:`source_codes`, ~3 s) is made once.
pytestmark = pytest.mark.xdist_group("problem-code-sources")


def _trees() -> Iterator[tuple[Path, ast.Module]]:
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class _Source:
    """The module-level string constants and the ``code`` positions of every function and
    dataclass of the scanned folders."""

    def __init__(self, trees: list[tuple[Path, ast.Module]]) -> None:
        self.constants: dict[str, set[str]] = {}
        self.local: dict[Path, dict[str, str]] = {}
        self.positions: dict[str, set[int]] = {}
        for path, tree in trees:
            own = self.local.setdefault(path, {})
            for node in tree.body:
                target, value = None, None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign):
                    target, value = node.target, node.value
                if (
                    isinstance(target, ast.Name)
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    own[target.id] = value.value
                    self.constants.setdefault(target.id, set()).add(value.value)
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef):
                    self._function(node)
                elif isinstance(node, ast.ClassDef):
                    self._class(node)

    def _function(self, node: ast.FunctionDef, owner: str | None = None) -> None:
        names = [a.arg for a in node.args.posonlyargs + node.args.args]
        if names and names[0] in ("self", "cls"):
            names = names[1:]
        if "code" in names:
            self.positions.setdefault(owner or node.name, set()).add(names.index("code"))

    def _class(self, node: ast.ClassDef) -> None:
        fields = [
            s.target.id
            for s in node.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        ]
        decorated = any(
            _name(d.func if isinstance(d, ast.Call) else d) == "dataclass"
            for d in node.decorator_list
        )
        if decorated and "code" in fields:
            self.positions.setdefault(node.name, set()).add(fields.index("code"))
        for s in node.body:
            if isinstance(s, ast.FunctionDef) and s.name in ("__init__", "__new__"):
                self._function(s, node.name)

    def values(self, path: Path, node: ast.AST | None) -> set[str]:
        """The code strings ``node`` can be (empty for a computed value: a copied code)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.IfExp):
            return self.values(path, node.body) | self.values(path, node.orelse)
        name = _name(node) if isinstance(node, ast.Name | ast.Attribute) else None
        if name is not None:
            if name in self.local[path]:
                return {self.local[path][name]}
            return set(self.constants.get(name, ()))
        return set()


def _leading_text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


@functools.cache
def source_codes() -> dict[str, set[str]]:
    """Every code the source creates -> the files that create it."""
    trees = list(_trees())
    source = _Source(trees)
    listed = listed_codes()
    found: dict[str, set[str]] = {}

    def add(path: Path, values: set[str]) -> None:
        for value in values:
            if value:
                found.setdefault(value, set()).add(str(path.relative_to(ROOT)))

    for path, tree in trees:
        said = [  # an exception's or a log line's text may start with a plugin's name
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Raise)
            or isinstance(n, ast.Call)
            and _name(n.func) in ("log", "print", "write")
        ]
        raised = {id(n) for r in said for n in ast.walk(r)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "code":
                        add(path, source.values(path, kw.value))
                callee = _name(node.func)
                if callee in WARN_CALLS and node.args:
                    add(path, source.values(path, node.args[0]))
                if _name(getattr(node.func, "value", None)) == "notes" and callee == "append":
                    row = node.args[0] if node.args else None  # notes.append((code, message))
                    if isinstance(row, ast.Tuple) and row.elts:
                        add(path, source.values(path, row.elts[0]))
                for i in source.positions.get(callee or "", ()):
                    if i < len(node.args):
                        add(path, {v for v in source.values(path, node.args[i]) if is_code(v)})
            elif isinstance(node, ast.FunctionDef):
                args = node.args.posonlyargs + node.args.args
                defaults = [None] * (len(args) - len(node.args.defaults)) + node.args.defaults
                for arg, default in zip(args, defaults, strict=True):
                    if arg.arg == "code" and default is not None:
                        add(path, source.values(path, default))
            elif isinstance(node, ast.AnnAssign | ast.Assign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "code" for t in targets):
                    add(path, source.values(path, node.value))
            elif isinstance(node, ast.Constant | ast.JoinedStr) and id(node) not in raised:
                text = _leading_text(node)
                m = PREFIXED.match(text or "")
                if m is not None and ("-" in m.group(1) or m.group(1) in listed):
                    add(path, {m.group(1)})
    return found


def test_the_walk_finds_codes_of_every_kind_of_source():
    """The walk sees each way a code is given (so the two tests below can fail)."""
    found = source_codes()
    for code, file in [
        ("bad-sync-marker", "formats/hadoop/sequencefile.py"),  # _Damaged(pos, BAD_SYNC, ...)
        ("truncated-record", "formats/hadoop/sequencefile.py"),  # HeaderError(..., TRUNCATED)
        ("not-read", "plugins/readers/clueweb09.py"),  # _problem("not-read", ...)
        ("bad-list-line", "formats/ntcir/lists.py"),  # ListProblem's code field default
        ("value-not-its-class", "plugins/readers/sequencefile.py"),  # report_warning(code, ...)
        ("check-failed", "core/run/task.py"),  # Damage(..., code="check-failed")
        ("empty-input", "core/run/task.py"),  # code=EMPTY_INPUT, a constant
        ("unwritable-kind", "plugins/writers/arc.py"),  # quarantine(record, "unwritable-kind: ...")
    ]:
        assert file in found.get(code, set()), (code, found.get(code))


def test_every_code_the_source_creates_is_listed_in_problems_md():
    found = source_codes()
    unlisted = {code: sorted(files) for code, files in found.items() if code not in listed_codes()}
    assert not unlisted, f"codes created in the source but not in docs/problems.md: {unlisted}"


def test_every_listed_code_is_created_in_the_source():
    found = source_codes()
    listed = listed_codes()
    never = sorted(listed - set(found) - set(OTHER_PATHS))
    assert not never, f"docs/problems.md lists codes no source creates: {never}"
    # the exceptions are real: listed, and not found by the walk after all
    assert set(OTHER_PATHS) <= listed and not set(OTHER_PATHS) & set(found)


def test_every_code_is_kebab_case():
    assert all(is_code(code) for code in source_codes())
