"""Deprecated: the layout lookup moved into core (:mod:`crawlmill.core.layouts`).

This module re-exports it (the same ``LAYOUTS`` table) so that imports of the old place
keep working, and will be removed.
"""

from __future__ import annotations

from crawlmill.core.layouts import LAYOUTS, Layout, find_layout, register_layout

__all__ = ["LAYOUTS", "Layout", "find_layout", "register_layout"]
