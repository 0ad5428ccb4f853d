"""The ``crawlmill`` command: argument parsing and printing only; the work is done by
:mod:`crawlmill.core.config`, :mod:`crawlmill.core.run.engine` and the plugins.

Output conventions: results a user asked for (``validate``, ``inspect``, ``plugins``) go to
stdout, and end quietly (exit 0) when the reader of a pipe goes away (``| head``); a run's
progress, damage reports, failures, the final accounting line and one warnings summary line
go to stderr, so stdout stays clean for pipes.

Exit codes of ``convert`` and ``run``:

* 0: every input converted whole;
* 3: the run completed but not everything was converted whole: records were quarantined, an
  input was not converted (its format was not detected, or no reader is installed for it),
  or a collection check (md5 or record-count list) failed;
* 1: the run failed: a task, the writer's finalize, an output-collision or accounting check
  failed, or ``--on-error fail`` stopped at damage (every failure is printed);
* 2: usage or config error, or nothing to convert (no input file found, or no reader claims
  any): nothing was run and nothing was written.

``inspect`` exits 0, 3 when the records it read showed damage or a failed check, 1 when the
reader raised, and 2 when it cannot read the path (no reader for the file, a folder that is
not a collection).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

# Only what parsing the arguments needs is imported here (``crawlmill --help`` loads no
# pydantic, YAML, registry, engine or codec); each command imports what it uses.
from ..errors import ConfigError, CrawlmillError, DamagedRecordError, PluginError
from . import get as get_command

if TYPE_CHECKING:
    from ..input_file import InputFile
    from ..registry import Registry
    from ..spec import PipelineSpec
    from .inspect_urls import Mirror

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_QUARANTINED = 0, 1, 2, 3
#: commands whose results go to stdout (a closed pipe ends them quietly).
_OUTPUT_COMMANDS = frozenset({"validate", "inspect", "plugins", "status", "dedup-runs", "get"})
#: a filter option word: ``key=value`` with an option-name key.
_OPTION_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*=")

_EXAMPLES = {
    "main": """\
examples:
  crawlmill convert legacy.arc.gz --to warc -o out/
  crawlmill run pipeline.yaml
  crawlmill validate pipeline.yaml
  crawlmill inspect some.warc.gz --records 3
  crawlmill plugins --json
  crawlmill status out/
  crawlmill get crawldb/current http://example.com/

exit codes: 0 ok; 3 completed, but records were quarantined, an input was not converted or a
collection check failed; 1 run failed; 2 usage or config error, or nothing to convert""",
    "convert": """\
examples:
  crawlmill convert legacy.arc.gz --to warc -o out/
  crawlmill convert crawl/*.warc.gz --to warc --option version=1.1 \\
      --filter kind keep=response,resource --filter size min_bytes=100 -o out/
  crawlmill convert segment/ --from clueweb09 --to warc --workers 8 -o out/

--filter takes the filter's name, then its options as key=value (key: letters, digits, _
and -); the first word that is not key=value ends the filter's options, and it and the words
after it are inputs. It may repeat, one filter per --filter, applied in order. Values are
read as JSON when they parse (5, true, ["a","b"]) and as text otherwise. The accounting line
is printed on stderr at the end.""",
    "run": """\
example:
  OUT=/data/out crawlmill run pipeline.yaml --workers 4
  crawlmill run pipeline.yaml --executor spark --spark-master 'local[2]'

The pipeline format (YAML, TOML or JSON) is described in docs/config.md.""",
    "validate": """\
example:
  crawlmill validate pipeline.yaml          # resolved pipeline, inputs and their outputs
  crawlmill validate pipeline.yaml --json   # the same as JSON

Exits 0 when the pipeline is valid, 2 (with every problem and its place) when not, or when
`run` would refuse it before writing (output collisions, outputs inside the inputs, files
crawlmill did not write), with the same message.""",
    "inspect": """\
example:
  crawlmill inspect some.warc.gz --records 3
  crawlmill inspect odd-file.bin --from arc

Exits 0, or 3 when the records it read showed damage (or a collection check failed); 2 when
no reader reads FILE (a folder that is not a collection, an unknown format).""",
    "plugins": """\
example:
  crawlmill plugins            # plugins, their components and options
  crawlmill plugins --json     # the same as JSON
  CRAWLMILL_DISABLE_PLUGINS=arc-reader crawlmill plugins --all""",
    "status": """\
example:
  crawlmill status out/          # state of the run, its passes and tasks
  crawlmill status out/ --json   # the same as JSON

A run that uses OUT now is "running"; one that ended without writing its report (killed) is
"killed", and rerunning it resumes. Exits 0, or 2 when OUT holds no crawlmill run.""",
}


# -- the parser ------------------------------------------------------------------------------


class _FilterAction(argparse.Action):
    """``--filter NAME [key=value ...]``: appends ``(NAME, [key=value, ...])`` to the filters.
    Only the ``key=value`` words right after NAME are its options; the first other word ends
    them, and it and the words after it go to ``late_inputs`` (inputs written after a filter)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        name, *words = values
        n = 0
        while n < len(words) and _OPTION_WORD.match(words[n]):
            n += 1
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), (name, words[:n])])
        namespace.late_inputs = [*(getattr(namespace, "late_inputs", None) or []), *words[n:]]


class _VersionAction(argparse.Action):
    """``--version``: prints ``crawlmill VERSION`` and exits, as argparse's ``version`` action
    does, but reads the installed version (``importlib.metadata``) only when it is asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, **kw):
        super().__init__(option_strings, dest=dest, default=default, **kw)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .. import __version__

        formatter = parser.formatter_class(prog=parser.prog)
        formatter.add_text(f"crawlmill {__version__}")
        sys.stdout.write(formatter.format_help())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The ``crawlmill`` argument parser with its subcommands."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="crawlmill",
        description="Convert web-crawl collections (WARC, ARC, ClueWeb09, ...) between formats, byte-exact.",
        epilog=_EXAMPLES["main"],
        formatter_class=fmt,
    )
    parser.add_argument(
        "--version", action=_VersionAction, nargs=0, help="show program's version number and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    plugin_opt = argparse.ArgumentParser(add_help=False)
    plugin_opt.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="also load this plugin module (importable name); may repeat",
    )

    run_opts = argparse.ArgumentParser(add_help=False)
    run_opts.add_argument(
        "--workers", type=int, metavar="N", help="parallel tasks (default: number of cores)"
    )
    run_opts.add_argument(
        "--executor",
        choices=["local", "spark"],
        help=(
            "where tasks run: local processes (default) or Spark "
            "(pyspark: pip install '.[spark]' in the crawlmill checkout)"
        ),
    )
    run_opts.add_argument(
        "--spark-master",
        metavar="URL",
        help="Spark master (local[2], spark://host:7077, yarn, ...); implies --executor spark",
    )
    run_opts.add_argument(
        "--on-error",
        choices=["quarantine", "fail"],
        help="damaged records: quarantine them and go on (default), or stop at the first",
    )
    run_opts.add_argument(
        "--no-resume", action="store_true", help="redo inputs that a previous run completed"
    )
    run_opts.add_argument(
        "--overwrite",
        action="store_true",
        help="replace files in OUT that crawlmill did not write, and the outputs of another "
        "pipeline there (refused by default)",
    )
    run_opts.add_argument(
        "--dry-run",
        action="store_true",
        help="plan only: print each file's fate (the collection or reader that takes it and "
        "its outputs, or why none) as `validate` does; nothing is run or written",
    )
    run_opts.add_argument(
        "--remove-orphans",
        action="store_true",
        help="delete the outputs in OUT of inputs no longer in the run (listed by default)",
    )
    run_opts.add_argument(
        "--md5",
        action="store_true",
        help="list the MD5 of every output in its completion marker (by default only where "
        "the writer or layout uses it, the others get a CRC-32)",
    )
    run_opts.add_argument(
        "--work-dir",
        metavar="DIR",
        help="local scratch folder of a run whose output is a URL (its stage; default: "
        "$CRAWLMILL_WORK_DIR or the temp folder; docs/storage.md)",
    )
    run_opts.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        help="live progress on stderr (auto: on a terminal)",
    )

    convert = sub.add_parser(
        "convert",
        parents=[run_opts, plugin_opt],
        help="convert files to another format",
        description="Read INPUT files (paths, folders, globs), filter the records, write them with a writer.",
        epilog=_EXAMPLES["convert"],
        formatter_class=fmt,
    )
    # nargs="*": inputs may also come after options and after a filter's key=value words;
    # main() gathers them all and requires one at least
    convert.add_argument("inputs", nargs="*", metavar="INPUT", help="input file, folder or glob")
    convert.set_defaults(late_inputs=[])
    convert.add_argument(
        "--to",
        default="warc",
        metavar="FORMAT",
        help="writer name (see `crawlmill plugins`; default: warc)",
    )
    convert.add_argument("-o", "--output", required=True, metavar="OUT", help="output folder")
    convert.add_argument(
        "--from", dest="source", metavar="FORMAT", help="reader name (default: detect per file)"
    )
    convert.add_argument(
        "--filter",
        dest="filters",
        action=_FilterAction,
        nargs="+",
        default=[],
        metavar="NAME [key=value ...]",
        help="add a filter with options; may repeat",
    )
    convert.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="key=value",
        help="a writer option; may repeat",
    )
    convert.add_argument(
        "--reader-option",
        action="append",
        default=[],
        metavar="key=value",
        help="a reader option; may repeat",
    )

    run = sub.add_parser(
        "run",
        parents=[run_opts],
        help="run a pipeline config",
        description="Run the pipeline a YAML, TOML or JSON config describes; flags override its run: section.",
        epilog=_EXAMPLES["run"],
        formatter_class=fmt,
    )
    run.add_argument(
        "pipeline", metavar="PIPELINE", help="pipeline config (.yaml, .yml, .toml, .json)"
    )

    validate = sub.add_parser(
        "validate",
        help="check a pipeline config without running it",
        description="Validate a pipeline config, print the resolved pipeline, the inputs it would "
        "read and the output files each would be written to; nothing is run or written.",
        epilog=_EXAMPLES["validate"],
        formatter_class=fmt,
    )
    validate.add_argument(
        "pipeline", metavar="PIPELINE", help="pipeline config (.yaml, .yml, .toml, .json)"
    )
    validate.add_argument("--json", action="store_true", help="print JSON")

    inspect = sub.add_parser(
        "inspect",
        parents=[plugin_opt],
        help="show a file's detected format and first records",
        description="Show how sure each reader is that FILE is its format, then the first records.",
        epilog=_EXAMPLES["inspect"],
        formatter_class=fmt,
    )
    inspect.add_argument("file", metavar="FILE")
    inspect.add_argument(
        "--records", "-n", type=int, default=5, metavar="N", help="records to show (default 5)"
    )
    inspect.add_argument(
        "--from", dest="source", metavar="FORMAT", help="reader name (default: detected)"
    )

    plugins = sub.add_parser(
        "plugins",
        parents=[plugin_opt],
        help="list plugins and their readers, writers and filters",
        description="List installed plugins: package, version, status, hooks and components with options.",
        epilog=_EXAMPLES["plugins"],
        formatter_class=fmt,
    )
    status = sub.add_parser(
        "status",
        help="show the passes and tasks of the run in an output folder",
        description="Show the state of the run using OUT (or of the last one): its passes with "
        "their state, and per pass the tasks done, running and failed (with the reason).",
        epilog=_EXAMPLES["status"],
        formatter_class=fmt,
    )
    status.add_argument("output", metavar="OUT", help="output folder of a run")
    get_command.add_parser(sub, [plugin_opt])
    status.add_argument("--json", action="store_true", help="print JSON")
    _dedup_runs_parser(sub, fmt)
    plugins.add_argument("--json", action="store_true", help="print JSON")
    plugins.add_argument(
        "--all", action="store_true", help="also list plugins disabled by CRAWLMILL_*_PLUGINS"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``crawlmill`` command line ``argv`` in this process; returns the exit code (the
    console script is :func:`crawlmill.core.cli.main`)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    # words argparse left over: inputs of convert written between or after options
    strays = [w for w in extra if not w.startswith("-") or w == "-"]
    if len(strays) != len(extra) or (strays and args.command != "convert"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "convert":
        args.late_inputs = [*args.late_inputs, *strays]
        if not args.inputs and not args.late_inputs:
            parser.error("convert: the following arguments are required: INPUT")
    handler = {
        "convert": _convert,
        "run": _run,
        "validate": _validate,
        "inspect": _inspect,
        "plugins": _plugins,
        "status": _status,
        "dedup-runs": _dedup_runs,
        "get": _get,
    }[args.command]
    try:
        code = handler(args)
        if args.command in _OUTPUT_COMMANDS:
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError as exc:
        if args.command in _OUTPUT_COMMANDS:
            return _stdout_gone()
        _error(str(exc))
        return EXIT_FAILED
    except ConfigError as exc:
        _error(str(exc))
        if args.command in ("run", "convert"):
            print("crawlmill: nothing was run and nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except PluginError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except (CrawlmillError, OSError) as exc:
        _error(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt as exc:
        _error("interrupted; a rerun resumes where this one stopped")
        return 128 + getattr(exc, "signum", 2)  # 130 for Ctrl-C, 143 for SIGTERM


def _error(message: str) -> None:
    for line in message.splitlines() or [""]:
        print(f"crawlmill: error: {line}", file=sys.stderr)


def _stdout_gone() -> int:
    """The reader of stdout went away (``crawlmill plugins | head``): stop quietly, like any
    filter. stdout is pointed at the null device so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (captured in tests)
        pass
    return EXIT_OK


# -- convert / run ---------------------------------------------------------------------------


def _convert(args: argparse.Namespace) -> int:
    from ..config import pipeline_from_arguments
    from ..registry import Registry
    from ..remote_paths import refuse_urls
    from ..storage_root import staged

    registry = Registry.load(args.plugin)
    inputs = [*args.inputs, *args.late_inputs]
    filters = list(args.filters)
    if args.reader_option and not args.source:
        raise ConfigError([("--reader-option", "needs --from FORMAT to say which reader")])
    spec = pipeline_from_arguments(
        registry,
        inputs=inputs,
        output=args.output,
        writer=(args.to, args.option),
        reader=(args.source, args.reader_option) if args.source else None,
        filters=filters,
        run=_run_overrides(args, {}),
        plugins=args.plugin,
    )
    if args.dry_run:
        refuse_urls(spec)
        with staged(spec, args.work_dir, publish=False) as local:
            return _show_plan(local, registry, "convert", False, dry_run=True, shown=spec)
    return _execute(spec, registry, args.work_dir)


def _run(args: argparse.Namespace) -> int:
    from ..config import load_pipeline, with_run_settings
    from ..registry import Registry
    from ..remote_paths import refuse_paths, refuse_urls
    from ..storage_root import staged

    registry = Registry.load()
    refuse_paths([("", args.pipeline)])
    spec = load_pipeline(args.pipeline, registry=registry)
    refuse_urls(spec, args.pipeline)
    # only the settings the config set, so a default (e.g. workers) stays a default
    given = spec.run.model_dump(exclude_unset=True)
    overrides = _run_overrides(args, given)
    if overrides != given:
        spec = with_run_settings(spec, overrides)
    try:
        if args.dry_run:
            with staged(spec, args.work_dir, publish=False) as local:
                return _show_plan(local, registry, args.pipeline, False, dry_run=True, shown=spec)
        return _execute(spec, registry, args.work_dir)
    except ConfigError as exc:  # found while planning (inputs): name the config file too
        raise ConfigError(exc.problems, exc.source or args.pipeline) from None


def _run_overrides(args: argparse.Namespace, run: dict[str, Any]) -> dict[str, Any]:
    run = dict(run)
    if args.workers is not None:
        run["workers"] = args.workers
    if args.executor is not None or args.spark_master is not None:
        run["executor"] = args.executor or "spark"
    if args.spark_master is not None:
        if run["executor"] != "spark":
            raise ConfigError([("--spark-master", "needs --executor spark")])
        run["spark"] = {**run.get("spark", {}), "master": args.spark_master}
    if args.on_error is not None:
        run["on_error"] = args.on_error
    if args.no_resume:
        run["resume"] = False
    if args.overwrite:
        run["overwrite"] = True
    if getattr(args, "remove_orphans", False):
        run["remove_orphans"] = True
    if getattr(args, "md5", False):
        run["md5"] = True
    if args.progress is not None:
        run["progress"] = args.progress
    return run


def _execute(spec: PipelineSpec, registry: Registry, work_dir: str | None = None) -> int:
    from ..remote_paths import refuse_urls
    from ..run import engine  # imported here: `crawlmill --help` need not load the engine
    from ..storage_root import staged

    refuse_urls(spec)  # a URL the run cannot use (exit 2)

    try:
        # the engine prints progress (per spec.run.progress), damage and task failures itself
        # (a URL output: in a local stage, published to the store: core/storage_root.py)
        with staged(spec, work_dir, hydrate=_has_finalize(spec, registry)) as local:
            report = engine.run(local, registry=registry, progress=sys.stderr)
    except DamagedRecordError as exc:
        _error(f"stopped at a damaged record (on_error: fail): {exc}")
        report = getattr(exc, "report", None)
        if report is not None:
            _summary(spec, report, registry)
        return EXIT_FAILED
    return _summary(spec, report, registry)


def _has_finalize(spec: PipelineSpec, registry: Registry) -> bool:
    """Whether the run's writer (or a file writer's layout) has a ``finalize``: it may read
    the outputs of earlier runs, which a store root's stage must then hold (True when in
    doubt)."""
    from ..plugin import Layout, Writer

    try:
        cls = registry.get("writer", spec.writer.name, suggest=False)
        layout = getattr(cls.Options.model_validate(spec.writer.options), "layout_class", None)
    except Exception:
        return True
    if layout is not None:
        return layout.finalize.__func__ is not Layout.finalize.__func__
    return cls.finalize.__func__ is not Writer.finalize.__func__


def _writer_kinds(spec: PipelineSpec, registry: Registry | None) -> tuple[str, ...] | None:
    """The record kinds the run's writer can hold (``Writer.kinds``; ``None``: any)."""
    try:
        return getattr(registry.get("writer", spec.writer.name, suggest=False), "kinds", None)
    except Exception:  # a summary never fails on a hint
        return None


def _summary(spec: PipelineSpec, report: Any, registry: Registry | None = None) -> int:
    """Print the end of a run on stderr (what ran, the accounting, the checks, one warnings
    line, what was left out, whether it failed) and return the exit code."""
    err = sys.stderr
    report_path = os.path.join(spec.output, ".crawlmill", "report.json")
    skipped = f", {report.inputs_skipped} already complete" if report.inputs_skipped else ""
    print(f"{report.inputs} input(s){skipped} in {report.elapsed:.1f}s -> {spec.output}", file=err)
    print(report.accounting_line(), file=err)
    for line in report.refused_lines(_writer_kinds(spec, registry)):
        print(line, file=err)
    for line in (report.counts_line(), report.checks_line(), report.warnings_line(report_path)):
        if line:
            print(line, file=err)
    if report.unclaimed:
        print(
            f"{len(report.unclaimed)} file(s) in the input folders were not read: no reader "
            "claims them (listed above and in .crawlmill/report.json)",
            file=err,
        )
    if report.not_converted:
        print(
            f"crawlmill: {len(report.not_converted)} input(s) not converted (listed above and "
            f"in {report_path})",
            file=err,
        )
    if not report.ok:
        print(
            f"crawlmill: the run failed: {len(report.failures)} failure(s) (listed above and in "
            f"{report_path})",
            file=err,
        )
        return EXIT_FAILED
    return EXIT_OK if report.complete else EXIT_QUARANTINED


# -- validate --------------------------------------------------------------------------------


def _validate(args: argparse.Namespace) -> int:
    from ..config import load_pipeline
    from ..registry import Registry
    from ..remote_paths import refuse_paths, refuse_urls
    from ..storage_root import staged

    registry = Registry.load()
    refuse_paths([("", args.pipeline)])
    spec = load_pipeline(args.pipeline, registry=registry)
    refuse_urls(spec, args.pipeline)
    with staged(spec, None, publish=False) as local:
        return _show_plan(local, registry, args.pipeline, as_json=args.json, shown=spec)


def _show_plan(
    spec: PipelineSpec,
    registry: Registry,
    label: str,
    as_json: bool,
    dry_run: bool = False,
    shown: PipelineSpec | None = None,
) -> int:
    """Print the plan of a run (``validate``, ``--dry-run``): every file's fate (the input
    or collection unit that reads it, with its reader and outputs; a side file a collection
    reads; or why it is not converted). ``--dry-run`` exits 3 when the run would leave a
    file unconverted or a unit unread, ``validate`` 0. ``shown``: the pipeline as the user
    gave it (an output URL, not its stage), printed in place of ``spec``."""
    try:
        planned, predicted = _plan_outputs(spec, registry)
    except ConfigError as exc:  # the same refusal, and words, as `run` at planning
        raise ConfigError(exc.problems, exc.source or label) from None
    plan = (  # made as printed: 100,000 inputs are never held twice
        {
            "path": p.input.path,
            "relpath": p.input.relpath,
            "reader": p.reader,
            "parts": dict(p.input.parts),
            "outputs": predicted[i] if predicted is not None else None,
        }
        for i, p in enumerate(planned)
    )
    claimed = [{"path": path, "reader": reader} for path, reader in planned.claimed]
    unread = [c for c in planned.checks if not c.ok]
    leaves_out = bool(planned.not_converted or unread)
    code = EXIT_QUARANTINED if dry_run and leaves_out else EXIT_OK
    skipped = [{"path": path, "reason": why} for path, why in planned.skipped]
    not_converted = [{"path": path, "reason": why} for path, why in planned.not_converted]
    warnings = [
        {"path": path, "message": message, "code": code} for path, message, code in planned.warnings
    ]
    shuffle = _shuffle_of(spec, registry)
    if as_json:
        data = {
            "pipeline": (shown or spec).model_dump(mode="json"),
            "shuffle": None
            if shuffle is None
            else {"partitions": shuffle.partitions, "partitioning": shuffle.partitioning},
            "inputs": list(plan),
            "claimed": claimed,
            "skipped": skipped,
            "not_converted": not_converted,
            "missing_parts": [{"path": c.path, "reason": c.reason} for c in unread],
            "warnings": warnings,
        }
        json.dump(data, sys.stdout, indent=2)
        print()
        return code
    out = sys.stdout
    print(
        f"{label}: valid" + (" (dry run: nothing is run or written)" if dry_run else ""), file=out
    )
    _print_spec(shown or spec, out)
    if shuffle is not None:
        print(
            f"the writer sorts every input into {shuffle.partitions} {shuffle.partitioning} "
            f"partition(s), one file or more each (part-00000 ... part-"
            f"{shuffle.partitions - 1:05d})",
            file=out,
        )
    print(f"inputs ({len(planned)}) and the files each is written to:", file=out)
    for item in plan:
        outputs = item["outputs"]
        if outputs:
            named = ", ".join(outputs)
        elif shuffle is not None:
            named = "(every partition)"
        else:
            named = "(named while writing)"
        print(f"  {item['path']}  [{item['reader']}] -> {named}", file=out)
        for name, part in item["parts"].items():
            print(f"      reads {part}  ({name})", file=out)
    if claimed:
        print(f"read by a collection beside its units ({len(claimed)}):", file=out)
        for item in claimed:
            print(f"  {item['path']}  [{item['reader']}]", file=out)
    if warnings:
        print(f"warnings ({len(warnings)}):", file=out)
        for item in warnings:
            print(f"  {item['path']}: {item['message']}", file=out)
    if not_converted:
        print(f"not converted ({len(not_converted)}, the run would exit 3):", file=out)
        for item in not_converted:
            print(f"  {item['path']}  ({item['reason']})", file=out)
    if unread:
        print(f"not read, a part is missing ({len(unread)}, the run would exit 3):", file=out)
        for check in unread:
            print(f"  {check.path}  ({check.reason})", file=out)
    if skipped:
        print(f"skipped ({len(skipped)}, no reader claims them):", file=out)
        for item in skipped:
            print(f"  {item['path']}", file=out)
    return code


def _shuffle_of(spec: PipelineSpec, registry: Registry) -> Any:
    """The writer's shuffle (:class:`~crawlmill.core.ShuffleSpec`) or ``None``."""
    from ..components import resolve_pipeline
    from ..run.shuffle.run import shuffle_of

    return shuffle_of(resolve_pipeline(spec, registry).writer.instantiate())


def _plan_outputs(spec: PipelineSpec, registry: Registry) -> tuple[Any, list[list[str]] | None]:
    """Plan the run as ``run`` does before it writes anything (inputs, the writer's planned
    outputs, resume, :func:`~crawlmill.core.run.ownership.check_outputs`), reading only. Raises
    the :class:`ConfigError` the run would raise."""
    from ..run import engine

    return engine.plan_outputs(spec, registry)


def _print_spec(spec: PipelineSpec, out: TextIO) -> None:
    def component(label: str, comp: Any) -> None:
        print(f"{label}: {comp.name}", file=out)
        for key, value in comp.options.items():
            print(f"    {key}: {json.dumps(value)}", file=out)

    if spec.reader is None:
        print("reader: (detected per input)", file=out)
    else:
        component("reader", spec.reader)
    for i, flt in enumerate(spec.filters):
        component(f"filters[{i}]", flt)
    component("writer", spec.writer)
    print(f"output: {spec.output}", file=out)
    run = ", ".join(f"{k}={json.dumps(v)}" for k, v in spec.run.model_dump(mode="json").items())
    print(f"run: {run}", file=out)
    if spec.plugins:
        print(f"plugins: {', '.join(spec.plugins)}", file=out)


# -- get -------------------------------------------------------------------------------------


def _get(args: argparse.Namespace) -> int:
    """``crawlmill get DIR KEY`` (:mod:`crawlmill.core.commands.get`)."""
    from ..registry import Registry

    return get_command.run(args, Registry.load(args.plugin))


# -- inspect ---------------------------------------------------------------------------------


def _inspect(args: argparse.Namespace) -> int:
    from .. import storage
    from ..registry import Registry
    from . import inspect_urls

    registry = Registry.load(args.plugin)
    path = storage.local_path(args.file)  # a URL is read through core/storage.py
    try:
        folder = inspect_urls.is_remote_folder(path)
    except storage.BackendError as exc:  # a refusal (HTTP 403), a store that fails (exit 2)
        raise ConfigError([("FILE", str(exc))]) from None
    if folder:  # a prefix: its readers look at a local mirror
        with inspect_urls.mirrored(registry, path) as mirror:
            return _inspect_path(args, registry, path, mirror)
    return _inspect_path(args, registry, path, None)


def _inspect_path(
    args: argparse.Namespace, registry: Registry, path: str, mirror: Mirror | None
) -> int:
    """``inspect`` of ``path``: a file, a local folder, or a folder at a URL mirrored in
    ``mirror`` (:mod:`crawlmill.core.commands.inspect_urls`)."""
    from crawlmill.formats.codecs.compression import compression_of
    from crawlmill.formats.foreign import foreign_format

    from .. import storage
    from ..collection import presence_checks
    from ..input_file import InputFile

    remote = storage.is_remote(path)
    if mirror is None and not (storage.isfile(path) if remote else os.path.exists(path)):
        raise ConfigError([("FILE", f"no such file: {storage.redact(path)}")])
    folder = mirror is not None or (not remote and os.path.isdir(path))
    look = mirror.path if mirror is not None else path  # what the readers look at
    head = raw = b""
    if not folder:
        head = storage.read_head(path)
        raw = storage.read_start(path, 512)
    ranking = registry.detect(look, head)
    if folder and not ranking and not args.source:
        return _inspect_tree(args, registry, path, mirror)
    out = sys.stdout
    if not folder:
        compression = compression_of(raw[:8]) or "none"
        print(f"{path}: {storage.size(path)} bytes, compression: {compression}", file=out)
    print("format detection (reader: confidence):", file=out)
    for name, confidence in ranking:
        print(f"  {name:<16} {confidence:.2f}", file=out)
    for _, message in sorted(registry.detection_failures.values()):
        print(f"  warning: {message}", file=out)
    if not ranking:
        foreign = foreign_format(raw, head)
        if foreign is not None:
            print(f"  {foreign}: no reader installed for it yet", file=out)
        else:
            print("  no reader recognises this file", file=out)
    reader_name = args.source or (ranking[0][0] if ranking else None)
    if reader_name is None and not folder and not remote:
        enclosing = _enclosing_collection(registry, path)
        if enclosing is not None:  # an NTCIR .data, a segment's part: shown as its reader reads it
            name, root, unit = enclosing
            print(f"part of the {name!r} collection {root}, read as a unit of it:", file=out)
            print(f"reading with: {name}", file=out)
            return _show_records(args, registry, [unit], registry.reader(name), only=path)
    if reader_name is None:
        print("give --from FORMAT to read it with a reader of your choice", file=sys.stderr)
        return EXIT_USAGE
    reader_cls = registry.reader(reader_name)
    print(f"reading with: {reader_name}", file=out)
    try:  # (not of a mirror: a reader's describe may read what discovery does not fetch)
        described = reader_cls.describe(path, head) if mirror is None else None
    except Exception:  # a plugin's describe must not stop inspect
        described = None
    if described:
        print(f"what it is: {described}", file=out)
    input_file = InputFile(path=path, relpath=os.path.basename(path.rstrip(os.sep)) or path)
    if folder:
        # a collection reader lists a folder itself: show the records of its first file
        found = reader_cls.discover(look, reader_cls.Options())
        if mirror is not None:
            found = mirror.to_urls(found or [])  # read from the URLs
        found = [unit for unit in found or [] if presence_checks(unit)[1]]  # parts all there
        if not found:
            raise ConfigError(
                [("FILE", f"{path} is a folder that reader {reader_name!r} does not read")]
            )
        print(f"first of {len(found)} file(s): {found[0].path}", file=out)
        return _show_records(args, registry, found, reader_cls)
    return _show_records(args, registry, [input_file], reader_cls)


#: how many folders above a file ``inspect`` looks in for the collection it belongs to.
_ENCLOSING_LEVELS = 6


def _enclosing_collection(registry: Registry, path: str) -> tuple[str, str, InputFile] | None:
    """``(reader, collection folder, unit)`` of the nearest folder above ``path`` that a
    collection reader reads and one of whose units holds ``path`` as a part."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    for _ in range(_ENCLOSING_LEVELS):
        for name, _confidence in registry.detect(folder, b""):
            cls = registry.reader(name)
            try:
                units = cls.discover(folder, cls.Options()) or []
            except Exception:  # a plugin's discover must not stop inspect
                continue
            for unit in units:
                parts = (unit.parts or {}).values()
                if any(os.path.realpath(p) == target for p in parts):
                    return name, folder, unit
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def _hadoop_output(path: str) -> list[str]:
    """The part files of a Spark/Hadoop job's output folder (``_SUCCESS``, ``part-*``), or
    ``[]`` when ``path`` is not one."""
    names = sorted(os.listdir(path))
    parts = [n for n in names if n.startswith("part-") and os.path.isfile(os.path.join(path, n))]
    return parts if parts or "_SUCCESS" in names else []


def _inspect_tree(
    args: argparse.Namespace, registry: Registry, path: str, mirror: Mirror | None = None
) -> int:
    """``inspect FOLDER`` of a folder no reader reads as one collection (a Nutch crawl
    folder, a folder of collections and loose files): the inputs ``convert`` would plan in
    it, each with its reader, the files it would not convert, then the first input's
    records. Exits 3 when a file would not be converted. A folder at a URL is planned as
    ``convert`` plans it; ``mirror`` is its mirror, for what the error names."""
    from ..inputs import expand_inputs
    from ..spec import PipelineSpec

    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": [path]}, "writer": {"name": "warc"},
         "output": os.path.join(path, ".crawlmill-inspect")}
    )  # fmt: skip
    try:
        planned = expand_inputs(spec, registry)
    except ConfigError as exc:
        if mirror is not None:  # a folder at a URL: its names are the mirror's
            shown = mirror.text(_not_a_collection(mirror.path, registry, mirror))
            raise ConfigError([("FILE", shown)]) from None
        parts = _hadoop_output(path)
        if parts:  # say what each part file is, as convert would
            head = (
                f"{path} is a Spark/Hadoop output folder of {len(parts)} part file(s), and no "
                "reader reads them"
            )
            why = [(loc, msg) for loc, msg in exc.problems if not msg.startswith("nothing to")]
            raise ConfigError([("FILE", head), *why]) from None
        raise ConfigError([("FILE", _not_a_collection(path, registry))]) from None
    out = sys.stdout
    print(f"{path}: a folder of {len(planned)} input(s), planned as `convert` plans it:", file=out)
    for p in planned:
        print(f"  {p.input.relpath}  [{p.reader}]", file=out)
    for file, reason in planned.not_converted:
        print(f"  not converted: {file}  ({reason})", file=out)
    first = planned[0]
    print(f"reading with: {first.reader}", file=out)
    print(f"first of {len(planned)} input(s): {first.input.path}", file=out)
    code = _show_records(args, registry, [first.input], registry.reader(first.reader))
    return EXIT_QUARANTINED if planned.not_converted and code == EXIT_OK else code


def _show_records(
    args: argparse.Namespace,
    registry: Registry,
    units: list[InputFile],
    reader_cls: Any,
    only: str | None = None,
) -> int:
    """Print the first ``args.records`` records of ``units`` (the units of a collection in
    turn, until that many were shown: a first unit that only checks lists, as an NTCIR
    tree's, holds no record), of those read from the file ``only`` when given, and what
    was damaged."""
    from ..reading import open_reader

    target = os.path.realpath(only) if only else None
    out = sys.stdout
    shown = damages = failed_checks = 0
    for i, unit in enumerate(units):
        if shown >= args.records:
            break
        if i:
            print(f"then {unit.path}", file=out)
        records = open_reader(
            unit,
            reader_cls,
            registry=registry,
            on_damage=lambda damage: print(f"DAMAGE {damage} [{damage.code}]", file=out),
            on_warning=lambda w: print(
                f"warning at byte {w.offset}: {w.message} [{w.code}]", file=out
            ),
            on_check=lambda check: print(
                f"{'CHECK' if check.ok else 'CHECK FAILED'} {check}", file=out
            ),
        )
        with records:
            try:
                for record in records:
                    if shown >= args.records:
                        break
                    source = record.source.path if record.source is not None else None
                    if target and (not source or os.path.realpath(source) != target):
                        continue
                    shown += 1
                    print(f"\n#{shown}", file=out)
                    print(_format_record(record), file=out)
            except CrawlmillError as exc:
                print(f"ERROR {exc}", file=out)
                return EXIT_FAILED
        damages += len(records.damages)
        failed_checks += len(records.failed_checks)
    failed = f", {failed_checks} failed check(s)" if failed_checks else ""
    print(f"\n{shown} record(s) shown, {damages} damaged range(s) seen{failed}", file=out)
    return EXIT_QUARANTINED if damages or failed_checks else EXIT_OK


#: files of a folder looked at for an example to inspect.
_EXAMPLE_CANDIDATES = 50


def _not_a_collection(path: str, registry: Registry, mirror: Mirror | None = None) -> str:
    """Why ``inspect FOLDER`` cannot go on, and a file of the folder to inspect instead (the
    first one a reader recognises, else the first one); ``path`` may be the ``mirror`` of a
    folder at a URL, whose files are detected at their URLs."""
    from crawlmill.formats.codecs.compression import read_head

    from .. import storage
    from ..inputs import is_side_file

    first = example = None
    seen = 0
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(n for n in filenames if not is_side_file(n)):
            candidate = os.path.join(dirpath, name)
            first = first or candidate
            seen += 1
            try:
                if mirror is not None:
                    url = mirror.to_urls(candidate)
                    found = registry.detect(url, storage.read_head(url))
                else:
                    found = registry.detect(candidate, read_head(candidate))
                if found:
                    example = candidate
            except OSError:
                pass
            if example or seen >= _EXAMPLE_CANDIDATES:
                break
        if example or seen >= _EXAMPLE_CANDIDATES:
            break
    example = example or first
    hint = f", e.g. crawlmill inspect {example}" if example else " (it holds no file)"
    return (
        f"{path} is a folder, not a collection any reader recognises; inspect one of its "
        f"files{hint}"
    )


def _format_record(record: Any) -> str:
    src = record.source
    where = "-"
    if src is not None:
        space = {"file": "in the file", "member": "of the compressed member(s)"}.get(
            src.space or "", "in the decompressed stream" if src.space else "(offset space unknown)"
        )
        where = f"byte {src.offset}, {src.length} bytes {space}"
    lines = [
        f"  kind:         {record.kind}",
        f"  url:          {record.url}",
        f"  date_raw:     {record.date_raw}",
        f"  doc_id:       {record.doc_id}",
        f"  content_type: {record.content_type}"
        + (f"; charset={record.charset}" if record.charset else ""),
        f"  http_status:  {record.http_status}",
        f"  payload:      {len(record.payload)} bytes",
        f"  at:           {where}",
    ]
    warc = record.extras.get("warc") or {}
    if warc.get("headers"):
        lines.append(f"  WARC/{warc.get('version', '?')} head:")
        for name, value in warc["headers"][:8]:
            lines.append(f"    {_text(name)}: {_text(value)}")
        if len(warc["headers"]) > 8:
            lines.append(f"    ... {len(warc['headers']) - 8} more header line(s)")
    arc = record.extras.get("arc") or {}
    if arc.get("header_line"):
        lines.append(f"  ARC header:   {_text(arc['header_line'])}")
    if record.http_head:
        head = record.http_head.decode("latin-1").splitlines()
        lines.append("  http head:")
        lines += [f"    {line}" for line in head[:6] if line]
        if len([h for h in head if h]) > 6:
            lines.append(f"    ... {len([h for h in head if h]) - 6} more header line(s)")
    elif record.payload:
        preview = record.payload[:160].decode("utf-8", "replace")
        lines.append("  payload start: " + textwrap.shorten(preview.replace("\n", " "), 100))
    return "\n".join(lines)


# -- plugins ---------------------------------------------------------------------------------


def _status(args: argparse.Namespace) -> int:
    from ..run.status import format_status, read_status

    try:
        status = read_status(args.output)
    except FileNotFoundError as exc:
        _error(str(exc))
        return EXIT_USAGE
    if args.json:
        print(json.dumps(status, indent=1, sort_keys=True))
    else:
        print(format_status(status))
    return EXIT_OK


def _plugins(args: argparse.Namespace) -> int:
    from ..registry import Registry

    registry = Registry.load(args.plugin)
    listing = [p for p in registry.describe() if args.all or p["status"] != "blocked"]
    if args.json:
        json.dump(listing, sys.stdout, indent=2)
        print()
        return EXIT_OK
    out = sys.stdout
    for plugin in listing:
        package = plugin["package"] or "?"
        version = plugin["version"] or "?"
        print(f"{plugin['name']}  ({package} {version})  {plugin['status']}", file=out)
        print(f"  module: {plugin['module']}", file=out)
        if plugin["error"]:
            print(f"  error: {plugin['error']}", file=out)
        if plugin["hooks"]:
            print(f"  hooks: {', '.join(plugin['hooks'])}", file=out)
        for comp in plugin["components"]:
            print(f"  {comp['kind']} {comp['name']}: {comp['summary']}", file=out)
            if comp.get("capabilities"):
                print(f"    capabilities: {', '.join(comp['capabilities'])}", file=out)
            for opt in comp["options"]:
                default = "required" if opt["required"] else f"default {json.dumps(opt['default'])}"
                kind = _short_type(opt["type"])
                print(f"      {opt['name']} ({kind}, {default}): {opt['description']}", file=out)
    for problem in registry.problems:
        print(f"warning: {problem}", file=out)
    return EXIT_OK


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes | bytearray) else str(value)


def _short_type(name: str) -> str:
    """``list[crawlmill.core.record.RecordKind] | None`` -> ``list[RecordKind] | None``."""
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)", r"\1", name)


# -- dedup-runs ------------------------------------------------------------------------------


def _dedup_runs_parser(sub: Any, fmt: Any) -> None:
    cmd = sub.add_parser(
        "dedup-runs",
        help="rewrite TREC runs and qrels through a near-duplicate cluster table",
        description="Rewrite TREC run files (keep the highest-ranked member of each cluster, "
        "replaced by its representative; ranks renumbered, scores kept) and qrels (one line "
        "per cluster: the representative with the maximum relevance), as the Chuweb21D paper "
        "did; prints what changed.",
        epilog="example:\n  crawlmill dedup-runs out/ --run a.run b.run --qrels q.txt -o deduped/",
        formatter_class=fmt,
    )
    cmd.add_argument("clusters", metavar="CLUSTERS", help="cluster table (Parquet) or output root")
    cmd.add_argument("--run", nargs="+", default=[], metavar="FILE", help="TREC run files")
    cmd.add_argument("--qrels", nargs="+", default=[], metavar="FILE", help="qrels files")
    cmd.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder")
    cmd.add_argument("--by", choices=["rank", "score"], default="rank",
                     help="order of a topic's entries: rank field, or score as trec_eval")  # fmt: skip
    cmd.add_argument("--overwrite", action="store_true", help="replace existing outputs")
    cmd.add_argument("--json", action="store_true", help="print the counts as JSON")


def _dedup_runs(args: argparse.Namespace) -> int:
    from .dedup_runs import DedupRunsError, dedup_runs, describe, few_matched

    try:
        results = dedup_runs(
            args.clusters, args.run, args.qrels, args.output, by=args.by, overwrite=args.overwrite
        )
    except DedupRunsError as exc:  # raised before anything is written: a usage error
        _error(str(exc))
        print("crawlmill: nothing was written", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=1))
    else:
        for result in results:
            print(describe(result))
    few = [r for r in results if few_matched(r)]
    for r in few:
        print(
            f"crawlmill: {r.source}: {r.counts['matched']} of {r.counts['lines_in']} run line(s) "
            "matched the cluster table (fewer than half): the run names documents otherwise",
            file=sys.stderr,
        )
    return EXIT_QUARANTINED if few else EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
