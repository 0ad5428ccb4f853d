"""Hadoop's byte formats: VInt/VLong, the Writable codecs, Hadoop's compression codecs and
SequenceFile reading and writing (``shared/specs/hadoop-nutch.md`` sections 1-3, 5.1).

Like every module of :mod:`crawlmill.formats`, nothing here imports the rest of crawlmill:

* :mod:`.vint`: ``WritableUtils`` zero-compressed integers;
* :mod:`.writables`: the byte codecs of Hadoop's basic Writable classes (and Common Crawl's
  ``TextBytes``), by Java class name, with the old class-name aliases;
* :mod:`.codecs`: the compression codecs a SequenceFile header names (zlib, gzip, bzip2,
  Snappy and LZ4 in Hadoop's block framing, zstd), bounded;
* :mod:`.sequencefile`: the header (SEQ1 to SEQ6), the entries of NONE, RECORD and BLOCK files
  with damage and resync at the next sync marker, and the writer;
* :mod:`.extras`: the ``Record.extras["sequencefile"]`` schema.
"""
