"""WARC: header parsing and framing, the record rules, serialisation, digests, CDXJ, and the optional compiled kernel of the read path."""
