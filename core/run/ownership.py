"""Output planning: where a run's outputs go and whose files they would replace, decided
before anything is written.

:func:`check_outputs` refuses a run (one :class:`~crawlmill.core.errors.ConfigError` listing
every problem, exit 2) when

1. the output folder is, or is inside, a folder the run lists as input;
2. two inputs would write the same path (the writer's ``planned_outputs``);
3. an output path is an input file of the run;
4. the output root holds outputs of another pipeline (other fingerprint: components, options,
   crawlmill and plugin versions), unless ``run.overwrite``;
5. an output path exists and no marker of crawlmill lists it, unless ``run.overwrite``.

It returns the existing files the run's tasks may replace: those crawlmill's markers list,
except the outputs of inputs the run resumes (``shared``, which
:class:`~crawlmill.core.run.outputs.TaskOutputs` enforces again at commit, also for the names no
writer could plan, such as rollover series). A marker whose files another input's task takes
over is void afterwards (the engine deletes it with its other files).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import storage
from ..errors import ConfigError
from ..inputs import InputPlan, PlannedInput
from ..messages import Marker
from ..registry import Registry
from ..spec import PipelineSpec
from .outputs import PENDING, OutputRoot, listed_paths, refusal

__all__ = ["OutputPlan", "check_outputs", "component_versions", "describe_difference"]


def component_versions(spec: PipelineSpec, registry: Registry) -> dict[str, str]:
    """Distribution -> version of crawlmill and of every plugin that provides a component the
    run uses: the writer, the filters, and the forced reader (or, when readers are detected,
    every registered reader, since any of them may be chosen)."""
    from .. import __version__

    versions = {"crawlmill": __version__}
    used = [("writer", spec.writer.name)] + [("filter", f.name) for f in spec.filters]
    readers = [spec.reader.name] if spec.reader else sorted(registry.components["reader"])
    used += [("reader", name) for name in readers]
    for kind, name in used:
        component = registry.components[kind].get(name)
        info = registry.plugins.get(component.plugin) if component is not None else None
        if info is not None:
            versions[info.package or info.name] = info.version or "unknown"
    return versions


def describe_difference(old: dict[str, Any] | None, new: dict[str, Any]) -> str:
    """What differs between two ``fingerprint_data`` dicts, in words (``filters``,
    ``versions: crawlmill 0.1.0 -> 0.2.0``)."""
    if not isinstance(old, dict):
        return "its settings are not recorded"
    parts = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) == new.get(key):
            continue
        if key == "versions":
            was, now = old.get(key) or {}, new.get(key) or {}
            changes = [
                f"{dist} {was.get(dist, 'absent')} -> {now.get(dist, 'absent')}"
                for dist in sorted(set(was) | set(now))
                if was.get(dist) != now.get(dist)
            ]
            parts.append(f"versions: {', '.join(changes)}")
        else:
            parts.append(key)
    return "it differs in " + "; ".join(parts) if parts else "it differs"


@dataclass
class OutputPlan:
    """What :func:`check_outputs` decided."""

    #: input index -> existing planned files its task may replace (inputs with none: absent).
    replaceable: dict[int, list[str]] = field(default_factory=dict)
    #: files any task of the run may replace: listed by markers of inputs it redoes or by
    #: pending markers (``replaceable.json``; names no writer could plan, renumbered ones).
    shared: set[str] = field(default_factory=set)
    #: markers (key -> marker) of another pipeline that ``overwrite`` replaces.
    foreign_markers: dict[str, dict[str, Any]] = field(default_factory=dict)


def _inside_or_equal(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


#: what the ownership rules read of a marker listing a file: its input and fingerprint.
Owner = dict[str, Any]


def _listed(
    root: OutputRoot,
    fingerprint: str,
    known: Iterable[Marker],
    keys: set[str],
    wanted: set[str],
) -> tuple[dict[str, list[tuple[str, Owner]]], dict[str, dict[str, Any]]]:
    """Every file the root's markers list, with the ``(key, owner)`` pairs listing it
    (``owner``: the marker's ``input_path`` and ``fingerprint`` only, so 100,000 markers are
    never all in memory), and the markers of another pipeline by key. The ``known`` markers
    (this pipeline's resumed inputs', read already; ``keys``: their keys) are taken as they
    are, and only for the files another marker lists too or in ``wanted`` (the outputs
    planned for the inputs to redo): their other files are kept and asked about by no rule,
    so a resume of 100,000 inputs holds no list of them; the others are read one by one."""
    listed: dict[str, list[tuple[str, Owner]]] = {}
    other: dict[str, dict[str, Any]] = {}
    for key, data in root.iter_owned_markers(skip=keys):
        if data.get("state") != PENDING and data.get("fingerprint") not in (None, fingerprint):
            other[key] = data
        owner = {"input_path": data.get("input_path"), "fingerprint": data.get("fingerprint")}
        for path in listed_paths(data):
            listed.setdefault(path, []).append((key, owner))
    for marker in known:
        files = [f.path for f in marker.files if f.path in listed or f.path in wanted]
        owner = {"input_path": marker.input_path, "fingerprint": marker.fingerprint}
        for path in files:
            listed.setdefault(path, []).append((marker.key, owner))
    return listed, other


def _planned_twice(inputs: list[PlannedInput], planned_at: Any) -> set[str]:
    """The paths planned for two inputs (or twice for one), found in the sorted list of every
    planned path (no map of every path to its input: 100,000 inputs)."""
    paths = sorted(rel for n in range(len(inputs)) for rel in planned_at(n))
    return {a for a, b in zip(paths, paths[1:], strict=False) if a == b}


def check_outputs(
    spec: PipelineSpec,
    planned: InputPlan,
    predicted: list[list[str]] | None,
    fingerprint: str,
    fingerprint_data: dict[str, Any],
    root: OutputRoot,
    redo: set[int],
    known: Iterable[Marker] = (),
    known_keys: set[str] | None = None,
) -> OutputPlan:
    """Check the planned outputs of a run (see the module docstring); ``redo`` holds the
    indexes of the inputs this run's tasks will (re)write; ``known``: completion markers the
    caller read already (the resumed inputs'), not read again (``known_keys``: their keys,
    when the caller has them without reading ``known``). Reads the root, writes nothing."""
    problems: list[tuple[str, str]] = []
    out_real = os.path.realpath(root.path)
    for folder in getattr(planned, "folders", []):
        if _inside_or_equal(out_real, folder):
            where = "is the input folder" if out_real == folder else "is inside the input folder"
            problems.append(
                (
                    "output",
                    f"{root.path} {where} {folder}: outputs would replace or mix with the "
                    f"inputs; choose an output folder outside the inputs, such as "
                    f"{folder.rstrip(os.sep)}-out",
                )
            )
    in_inputs = bool(problems)  # said once: not again for each output among the inputs
    result = OutputPlan()
    inputs: list[PlannedInput] = list(planned)

    def planned_at(n: int) -> list[str]:  # the paths planned for inputs[n] (none: unknown)
        return predicted[n] if predicted is not None else []

    # the real paths of the inputs, to find outputs onto inputs; held while checking only
    reals = {os.path.realpath(p.input.path) for p in inputs}
    clashes: set[str] = set()  # outputs that are inputs: refused above, not again below
    twice = _planned_twice(inputs, planned_at)
    owner: dict[str, int] = {}  # planned path named twice -> the position of its input
    for n, p in enumerate(inputs):
        for rel in planned_at(n):
            if rel in twice and owner.setdefault(rel, n) != n:
                problems.append(
                    (
                        "output",
                        f"{inputs[owner[rel]].input.path} and {p.input.path} would both be "
                        f"written to {rel}; give the writer a name pattern that tells them apart",
                    )
                )
                owner[rel] = n
            final = os.path.realpath(os.path.join(root.path, rel))
            if final in reals:
                clashes.add(final)
                if in_inputs:
                    continue
                problems.append(
                    (
                        "output",
                        f"the output {final} of {p.input.path} is an input of this run; "
                        "choose an output folder outside the inputs",
                    )
                )
    del owner, reals

    wanted = {rel for n, p in enumerate(inputs) if p.input.index in redo for rel in planned_at(n)}
    if known_keys is None:
        known = list(known)
        known_keys = {m.key for m in known}
    listed, other = _listed(root, fingerprint, known, known_keys, wanted)
    if other:
        if spec.run.overwrite:
            result.foreign_markers = other
        else:
            recorded = root.read_pipeline()
            old = recorded.get("pipeline") if recorded else None
            if recorded and recorded.get("fingerprint") not in {
                m.get("fingerprint") for m in other.values()
            }:
                old = None  # the record is not of the markers' pipeline
            problems.append(
                (
                    "output",
                    f"{root.path} holds the outputs of another pipeline "
                    f"({sum(1 for m in other.values() if m.get('input_path'))} input(s) "
                    f"written with fingerprint {sorted({m.get('fingerprint') for m in other.values()})[0]}, "
                    f"this run has {fingerprint}: {describe_difference(old, fingerprint_data)}); "
                    "an output folder belongs to one pipeline: choose a new output folder "
                    "(convert: -o DIR; run: `output:` in the pipeline file), "
                    "or pass --overwrite (run.overwrite: true) to replace those outputs",
                )
            )

    kept_paths = (  # made only when a listed file asks (a full resume lists none)
        {storage.absolute(p.input.path) for p in inputs if p.input.index not in redo}
        if listed
        else set()
    )
    for rel, owners in listed.items():
        kept = any(
            m.get("input_path") in kept_paths and m.get("fingerprint") == fingerprint
            for _, m in owners
        )
        if not kept:
            result.shared.add(rel)
    for n, p in enumerate(inputs):
        if p.input.index not in redo:
            continue  # resumed: its marker lists its files
        mine: list[str] = []
        for rel in planned_at(n):
            final = os.path.join(root.path, rel)
            if not os.path.lexists(final) or os.path.realpath(final) in clashes:
                continue
            if rel in result.shared or spec.run.overwrite:
                mine.append(rel)
            elif rel not in listed:
                problems.append(("output", refusal(final)))
            else:
                names = ", ".join(sorted({str(m.get("input_path")) for _, m in listed[rel]}))
                problems.append(("output", refusal(final, f"it is the complete output of {names}")))
        if mine:
            result.replaceable[p.input.index] = mine
    if problems:
        raise ConfigError(problems)
    return result
