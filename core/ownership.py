"""Output planning: where a run's outputs go and whose files they would replace, decided
before anything is written.

:func:`check_outputs` refuses a run (one :class:`~crawlmill.core.errors.ConfigError` listing
every problem, exit 2) when

1. the output folder is, or is inside, a folder the run lists as input;
2. two inputs would write the same path (the writer's ``planned_outputs``);
3. an output path is an input file of the run;
4. the output root holds outputs of another pipeline (other fingerprint: components, options,
   crawlmill and plugin versions), unless ``run.overwrite``;
5. an output path exists and no marker of crawlmill lists it, or a marker of an input that is
   not in this run does, unless ``run.overwrite``.

It returns, per input, the existing files its task may replace (files of its own older markers
and of inputs this run redoes, or of markers a killed commit left pending), which the task's
:class:`~crawlmill.core.outputs.TaskOutputs` enforces again at commit for the names no writer
could plan (rollover series).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError
from .inputs import InputPlan, PlannedInput
from .outputs import PENDING, OutputRoot, refusal
from .registry import Registry
from .spec import PipelineSpec

__all__ = ["OutputPlan", "check_outputs", "component_versions", "describe_difference"]


def component_versions(spec: PipelineSpec, registry: Registry) -> dict[str, str]:
    """Distribution -> version of crawlmill and of every plugin that provides a component the
    run uses: the writer, the filters, and the forced reader (or, when readers are detected,
    every registered reader, since any of them may be chosen)."""
    from . import __version__

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

    #: input index -> the paths planned for it (empty when the writer cannot tell).
    planned: dict[int, list[str]] = field(default_factory=dict)
    #: input index -> existing files its task may replace.
    replaceable: dict[int, list[str]] = field(default_factory=dict)
    #: markers (key -> marker) of another pipeline that ``overwrite`` replaces.
    foreign_markers: dict[str, dict[str, Any]] = field(default_factory=dict)


def _inside_or_equal(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_outputs(
    spec: PipelineSpec,
    planned: InputPlan,
    predicted: list[list[str]] | None,
    fingerprint: str,
    fingerprint_data: dict[str, Any],
    root: OutputRoot,
    redo: set[int],
) -> OutputPlan:
    """Check the planned outputs of a run (see the module docstring); ``redo`` holds the
    indexes of the inputs this run's tasks will (re)write. Reads the root, writes nothing."""
    problems: list[tuple[str, str]] = []
    out_real = os.path.realpath(root.path)
    for folder in getattr(planned, "folders", []):
        if _inside_or_equal(out_real, folder):
            where = "is the input folder" if out_real == folder else "is inside the input folder"
            problems.append(
                (
                    "output",
                    f"{root.path} {where} {folder}: outputs would replace or mix with the "
                    "inputs; choose an output folder outside the inputs",
                )
            )
    result = OutputPlan()
    inputs: list[PlannedInput] = list(planned)
    if predicted is not None:
        result.planned = {
            p.input.index: list(paths) for p, paths in zip(inputs, predicted, strict=True)
        }
    by_real = {os.path.realpath(p.input.path): p for p in inputs}
    owner: dict[str, PlannedInput] = {}
    for p in inputs:
        for rel in result.planned.get(p.input.index, []):
            if rel in owner and owner[rel] is not p:
                problems.append(
                    (
                        "output",
                        f"{owner[rel].input.path} and {p.input.path} would both be written to "
                        f"{rel}; give the writer a name pattern that tells them apart",
                    )
                )
            owner[rel] = p
            final = os.path.realpath(os.path.join(root.path, rel))
            if final in by_real:
                problems.append(
                    (
                        "output",
                        f"the output {final} of {p.input.path} is an input of this run; "
                        "choose an output folder outside the inputs",
                    )
                )

    listed = root.listed_files()
    markers = root.markers()
    other = {
        k: m
        for k, m in markers.items()
        if m.get("state") != PENDING and m.get("fingerprint") not in (None, fingerprint)
    }
    if other:
        if spec.run.overwrite:
            result.foreign_markers = other
        else:
            recorded = root.read_pipeline()
            old = recorded.get("pipeline") if recorded else None
            if recorded and recorded.get("fingerprint") == fingerprint:
                old = None  # the record is of this pipeline: the markers are older still
            problems.append(
                (
                    "output",
                    f"{root.path} holds the outputs of another pipeline ({len(other)} input(s) "
                    f"written with fingerprint {sorted({m.get('fingerprint') for m in other.values()})[0]}, "
                    f"this run has {fingerprint}: {describe_difference(old, fingerprint_data)}); "
                    "an output folder belongs to one pipeline: choose a new output folder (-o), "
                    "or pass --overwrite (run.overwrite: true) to replace those outputs",
                )
            )

    redo_paths = {os.path.abspath(p.input.path) for p in inputs if p.input.index in redo}
    by_input: dict[str, list[str]] = {}
    for rel, owners in listed.items():
        for path in {m.get("input_path") for _, m in owners}:
            if isinstance(path, str):
                by_input.setdefault(path, []).append(rel)
    for p in inputs:
        mine = list(by_input.get(os.path.abspath(p.input.path), []))
        for rel in result.planned.get(p.input.index, []):
            final = os.path.join(root.path, rel)
            if rel in mine or not os.path.lexists(final):
                continue
            owners = [m for k, m in listed.get(rel, []) if k not in other]
            ours = any(
                m.get("state") == PENDING or m.get("input_path") in redo_paths for m in owners
            )
            if ours or spec.run.overwrite:
                mine.append(rel)
            elif p.input.index not in redo:
                continue  # resumed: its marker lists the file
            elif owners:
                names = ", ".join(sorted({str(m.get("input_path")) for m in owners}))
                problems.append(("output", refusal(final, f"an earlier run wrote it for {names}")))
            elif not listed.get(rel):
                problems.append(("output", refusal(final)))
            else:
                mine.append(rel)  # listed by another pipeline's marker (refused above)
        result.replaceable[p.input.index] = sorted(set(mine))
    if problems:
        raise ConfigError(problems)
    return result
