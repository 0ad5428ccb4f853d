"""Byte-level codecs shared by readers and writers; they know nothing of pipelines."""
