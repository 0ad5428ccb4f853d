"""Compressed input and output for every format: the codec table, member- and frame-aware decompression, the member stream and the member writer."""
