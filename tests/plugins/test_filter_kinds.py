"""The ``kinds`` option the filters share (plugins/filters/kinds.py): one definition, a list
or one comma-separated string, the captures by default, an unknown kind refused naming the
option, in each filter that has it, and from the command line."""

from __future__ import annotations

import pytest
from crawlmill.core import RecordKind
from crawlmill.core.commands.cli import main
from crawlmill.plugins.filters.cooked_text import CookedTextFilter
from crawlmill.plugins.filters.exact_dedup import ExactDedupFilter
from crawlmill.plugins.filters.kinds import CAPTURE_KINDS, Kinds
from crawlmill.plugins.filters.simhash_dedup import SimhashDedupFilter
from pydantic import ValidationError

from tests.conftest import SAMPLES

FILTERS = [ExactDedupFilter, SimhashDedupFilter, CookedTextFilter]


@pytest.mark.parametrize("filt", FILTERS, ids=lambda f: f.name)
def test_each_filter_takes_its_kinds_from_the_shared_option(filt):
    field = filt.Options.model_fields["kinds"]
    assert field.annotation == list[RecordKind] and tuple(field.metadata) == Kinds.__metadata__
    assert filt.Options().kinds == list(CAPTURE_KINDS) == ["response", "resource"]
    assert filt.Options(kinds="request, metadata").kinds == [RecordKind.REQUEST, RecordKind.METADATA]
    assert filt.Options(kinds=["revisit"]).kinds == [RecordKind.REVISIT]
    with pytest.raises(ValidationError, match="kinds"):
        filt.Options(kinds="response,nonsense")
    assert filt.Options().kinds is not filt.Options().kinds  # a fresh list each


@pytest.mark.parametrize("name", ["exact-dedup", "simhash-dedup", "cooked-text"])
def test_the_command_line_refuses_an_unknown_kind_naming_the_option(tmp_path, capsys, name):
    src = SAMPLES / "webrecorder-pywb/sample_archive/warcs/iana.warc.gz"
    args = ["convert", str(src), "--to", "warc", "-o", str(tmp_path / "o"), "--filter", name]
    assert main([*args, "kinds=response,nonsense"]) == 2
    err = capsys.readouterr().err
    assert "kinds" in err and "nonsense" in err
