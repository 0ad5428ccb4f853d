"""Nutch's indexer Writables (``NutchField``, ``NutchDocument``, ``NutchIndexAction``),
decoded and encoded byte for byte, each read by Nutch's own class of release-1.22 compiled
from its source (tests/oracles/nutch/): Java consumes our bytes exactly and writes the same
bytes back.

The page: "./src/java/org/apache/nutch/indexer/NutchDocument.java
./src/java/org/apache/nutch/indexer/NutchField.java
./src/java/org/apache/nutch/indexer/NutchIndexAction.java"."""

from __future__ import annotations

import pytest
from crawlmill.formats.hadoop import nutch_index as ix
from crawlmill.formats.hadoop.nutch import decode_nutch, encode_nutch
from crawlmill.formats.hadoop.nutch_io import Metadata

from tests.nutch_oracle import assert_round_trip_and_nutch_reads

FIELD = ix.NutchField(2.0, [["java.lang.String", "caf\u00e9"], ["java.lang.Boolean", True],
                            ["java.lang.Integer", -7], ["java.lang.Float", 0.25],
                            ["java.lang.Long", 1 << 40], ["java.util.Date", 1_700_000_000_123]])  # fmt: skip
DOC = ix.NutchDocument([["title", FIELD]], 1.5, Metadata([("segment", ["20240506"])]))
VALUES = {
    ix.NUTCH_FIELD: [FIELD, ix.NutchField()],
    ix.NUTCH_DOCUMENT: [DOC, ix.NutchDocument()],
    ix.NUTCH_INDEX_ACTION: [ix.NutchIndexAction(2, DOC), ix.NutchIndexAction(1)],
}
JAVA_SAYS = {ix.NUTCH_FIELD: "caf\u00e9", ix.NUTCH_DOCUMENT: "title", ix.NUTCH_INDEX_ACTION: ""}


@pytest.mark.parametrize("name", list(VALUES), ids=lambda n: n.rsplit(".", 1)[-1])
def test_each_value_round_trips_and_nutchs_class_reads_it_exactly(name, nutch_java, tmp_path):
    assert_round_trip_and_nutch_reads(nutch_java, name, VALUES[name], tmp_path, JAVA_SAYS[name])


def test_field_layout_from_the_source():
    data = encode_nutch(ix.NUTCH_FIELD, ix.NutchField(1.0, [["java.lang.Integer", 5]]))
    # float weight, int count, Text class name, int value
    assert data == (b"\x3f\x80\x00\x00" + b"\x00\x00\x00\x01" + b"\x11java.lang.Integer"
                    + b"\x00\x00\x00\x05")  # fmt: skip
    # a class NutchField does not know: its name only, as Java writes and reads it
    odd = encode_nutch(ix.NUTCH_FIELD, ix.NutchField(1.0, [["java.lang.Short", None]]))
    assert decode_nutch(ix.NUTCH_FIELD, odd).values == [["java.lang.Short", None]]


def test_a_document_of_another_version_is_refused():
    data = bytearray(encode_nutch(ix.NUTCH_DOCUMENT, ix.NutchDocument()))
    data[0] = 1
    with pytest.raises(Exception, match="version"):
        decode_nutch(ix.NUTCH_DOCUMENT, bytes(data))
