"""The console script's precompiled dataclass methods (crawlmill/core/dataclass_code.py): the
table is current for a one-record convert, each entry is the code its text compiles to, and a
class made with the table installed behaves as one made without it.

Each check runs in a fresh interpreter (the classes must be created after ``install``, and
this process's ``dataclasses`` stays as it is). No timing is asserted.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from types import CodeType

import pytest
from crawlmill.core import dataclass_code, dataclass_table

REGENERATE = "regenerate it: python -m crawlmill.core.dataclass_table_writer"


def _python(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _same_code(a: CodeType, b: CodeType) -> bool:
    """Equal but for the file name and line numbers (the table's vs ``"<string>"``)."""
    if (a.co_code, a.co_names, a.co_varnames, a.co_freevars, a.co_cellvars) != (
        b.co_code,
        b.co_names,
        b.co_varnames,
        b.co_freevars,
        b.co_cellvars,
    ):
        return False
    if (a.co_argcount, a.co_kwonlyargcount, a.co_flags, a.co_qualname) != (
        b.co_argcount,
        b.co_kwonlyargcount,
        b.co_flags,
        b.co_qualname,
    ):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts, strict=True):
        if isinstance(x, CodeType) or isinstance(y, CodeType):
            if not (isinstance(x, CodeType) and isinstance(y, CodeType) and _same_code(x, y)):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def test_each_entry_is_the_code_of_its_text() -> None:
    assert dataclass_table.CODE, REGENERATE
    for text, code in dataclass_table.CODE.items():
        module = compile(text, "<string>", "exec", dont_inherit=True)
        (expected,) = [c for c in module.co_consts if isinstance(c, CodeType)]
        assert _same_code(code, expected), text
    # code that differs in a name is told apart (and compiled with this module's
    # ``annotations`` future, the annotations would differ: what dont_inherit prevents)
    text = next(iter(dataclass_table.CODE))
    other = compile(text.replace("self", "this"), "<string>", "exec", dont_inherit=True)
    (changed,) = [c for c in other.co_consts if isinstance(c, CodeType)]
    assert not _same_code(dataclass_table.CODE[text], changed)


@pytest.mark.skipif(
    sys.version_info[:2] != dataclass_table.PYTHON,
    reason="another Python's dataclasses write other texts (they are compiled as before)",
)
def test_the_table_holds_every_text_of_a_one_record_convert() -> None:
    """A changed dataclass on the convert's path would be compiled at each start again."""
    found = _python(
        """
        import json
        from crawlmill.core.dataclass_code import record_texts
        from crawlmill.core.dataclass_table_writer import one_record_convert
        print(json.dumps(record_texts(one_record_convert)))
        """
    )
    assert len(found) > 100
    missing = [t.splitlines()[1] for t in found if t not in dataclass_table.CODE]
    assert missing == [], f"{len(missing)} method texts are not in the table: {REGENERATE}"
    assert dataclass_code.table_source(found).count("\ndef __create_fn__(") == len(found)


@pytest.mark.skipif(
    not callable(getattr(dataclasses, "_create_fn", None)),
    reason="this Python's dataclasses builds its methods otherwise (install() does nothing)",
)
def test_classes_made_from_the_table_behave_as_compiled_ones() -> None:
    found = _python(
        """
        import dataclasses, json
        from crawlmill.core.dataclass_code import install, installed
        assert not installed()
        assert install() and install() and installed()
        from crawlmill.core.messages import OutputFile
        from crawlmill.core.record import Outlink

        a = OutputFile(path="a.warc.gz", size=3)
        b = OutputFile(path="a.warc.gz", size=3)
        try:
            a.size = 4
            frozen = False
        except dataclasses.FrozenInstanceError:
            frozen = True

        @dataclasses.dataclass(frozen=True)
        class NotInTheTable:  # a text the table does not hold: compiled as before
            some_field_no_crawlmill_class_has: int = 7

        print(json.dumps({
            "hit": OutputFile.__init__.__code__.co_filename,
            "eq": a == b and a != OutputFile(path="b", size=3),
            "repr": repr(a),
            "frozen": frozen,
            "fields": [f.name for f in dataclasses.fields(OutputFile)],
            "init_name": OutputFile.__init__.__qualname__,
            "outlink": repr(Outlink(url="http://example.com/")),
            "miss": NotInTheTable.__init__.__code__.co_filename,
            "miss_value": NotInTheTable().some_field_no_crawlmill_class_has,
        }))
        """
    )
    assert found["hit"].endswith("dataclass_table.py")
    assert found["miss"] == "<string>" and found["miss_value"] == 7
    assert found["eq"] is True and found["frozen"] is True
    assert found["init_name"] == "OutputFile.__init__"
    # the same as without the table (this process has not installed it)
    from crawlmill.core.messages import OutputFile
    from crawlmill.core.record import Outlink

    assert not dataclass_code.installed()
    assert found["repr"] == repr(OutputFile(path="a.warc.gz", size=3))
    assert found["outlink"] == repr(Outlink(url="http://example.com/"))
    assert found["fields"] == [f.name for f in dataclasses.fields(OutputFile)]


@pytest.mark.skipif(
    not callable(getattr(dataclasses, "_create_fn", None)),
    reason="this Python's dataclasses builds its methods otherwise (install() does nothing)",
)
def test_the_console_script_installs_the_table_and_freezes_at_its_end(tmp_path) -> None:
    """``crawlmill.core.cli.main`` (the console script) runs the command with the table
    installed and freezes the collector's objects when it returns (the process ends then);
    ``crawlmill.core.commands.cli.main`` (in-process callers) does neither."""
    import gzip

    src = tmp_path / "one.warc.gz"
    src.write_bytes(
        gzip.compress(
            b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            b"WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://example.com/\r\n"
            b"Content-Length: 5\r\n\r\nhello\r\n\r\n",
            mtime=0,
        )
    )
    found = _python(
        f"""
        import contextlib, gc, io, json
        from crawlmill.core import dataclass_code
        from crawlmill.core.commands.cli import main as command
        from crawlmill.core.cli import main

        argv = ["inspect", {str(src)!r}]
        with contextlib.redirect_stdout(io.StringIO()):
            before = [command(argv), dataclass_code.installed(), gc.get_freeze_count()]
        with contextlib.redirect_stdout(io.StringIO()):
            after = [main(["convert", {str(src)!r}, "--to", "warc", "-o", {str(tmp_path / "out")!r}])]
        after += [dataclass_code.installed(), gc.get_freeze_count() > 0]
        print(json.dumps([before, after]))
        """
    )
    assert found == [[0, False, 0], [0, True, True]]
    assert (tmp_path / "out" / "one.warc.gz").read_bytes() == src.read_bytes()
