"""Build of the optional compiled WARC framing kernel (everything else is in pyproject.toml).

``optional=True``: without a C compiler the install still succeeds and crawlmill runs its pure
Python path (the same results; ``CRAWLMILL_PURE=1`` forces that path where the kernel is built).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("crawlmill.formats.warc._warcfast", ["formats/warc/_warcfast.c"], optional=True),
    ]
)
