"""A damage range a reader reports is checked against its input's size for an input at a URL
as for a local file (core/run/quarantine.py): a range past the end of the object is flagged
``inconsistent``, never passed off as a true range; one inside it is not flagged. The input
is served by a local HTTP server (tests/core/test_storage_http.py's fixture).

Issue 22: "An ``https://`` input (a local HTTP server in the test) and a ``file://`` URL work
like local paths."; the developers' guide: "no silent loss, no silent change"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crawlmill.core.run.quarantine import INCONSISTENT_DAMAGE

from tests.core import test_storage_http
from tests.helpers import convert

#: one worker runs this module's tests: one HTTP server serves them all.
pytestmark = pytest.mark.xdist_group("storage-http")

#: a local HTTP server over a folder, honouring ``Range``.
http = test_storage_http.http

LINES = ["R http://ex.com/0 response p", "D garbage here", "R http://ex.com/1 response p"]


def _damages(src: str, out: Path, shift: int) -> dict:
    args = ("--from", "fake-skewed", "--reader-option", f"shift={shift}", "--plugin", "cm_skewed")
    assert convert(src, "fake-jsonl", out, "--plugin", "cm_fake", *args).exit_code == 3
    return json.loads((out / ".crawlmill" / "report.json").read_text())


@pytest.mark.parametrize("shift", [0, 1000], ids=["inside", "past-the-end"])
def test_a_damage_range_at_a_url_is_checked_as_a_local_one(tmp_path, fake, http, shift):
    name = f"skewed-{shift}.txt"
    local = Path(http.folder) / name
    local.write_text("".join(line + "\n" for line in LINES))
    reports = {where: _damages(src, tmp_path / where, shift)
               for where, src in (("local", str(local)), ("http", f"{http.base}/{name}"))}  # fmt: skip
    (damage,) = reports["http"]["damages"]
    assert damage["path"] == f"{http.base}/{name}"
    for key in ("damages", "warnings", "quarantined", "read", "written"):
        normalized = json.loads(
            json.dumps(reports["local"][key]).replace(str(local), damage["path"])
        )
        assert reports["http"][key] == normalized, key
    flagged = "inconsistent" in damage
    assert flagged == (shift > 0)
    assert (INCONSISTENT_DAMAGE in reports["http"]["warnings"]) == flagged
