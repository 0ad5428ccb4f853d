"""The pictures of ``simhash-dedup``'s statistics, as the Chuweb21D paper's Figures 3 and 4:
documents kept and the largest cluster against the threshold (``tau``, or ``tau128`` for the
128-bit check), and the cluster-size distribution (log-log). matplotlib is the optional
``plots`` extra; :func:`matplotlib_missing` says when it is not installed.
Figures are drawn with ``matplotlib.figure.Figure`` (no pyplot, no global backend) and saved
without a date, so the same statistics give the same SVG.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["FORMATS", "matplotlib_missing", "write_plots"]

FORMATS = ("png", "svg")


def matplotlib_missing() -> str | None:
    """Why no plots can be drawn (``None`` when matplotlib is installed)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "matplotlib is not installed (pip install '.[plots]' in the crawlmill checkout, or pip install matplotlib); no plots written"
    return None


def _threshold_figure(rows: Sequence[Any], axis: str) -> Any:
    from matplotlib.figure import Figure

    xs = [r.tau if axis == "tau" else r.tau128 for r in rows]
    fig = Figure(figsize=(6, 4), dpi=100)
    ax = fig.add_subplot()
    ax.plot(xs, [100 * r.kept_ratio for r in rows], "o-", color="tab:blue", label="documents kept")
    ax.set_xlabel(
        "64-bit threshold τ" if axis == "tau" else f"128-bit threshold τ̃ (τ = {rows[0].tau})"
    )
    ax.set_ylabel("documents kept (% of documents)", color="tab:blue")
    ax.set_xticks(xs)
    right = ax.twinx()
    right.plot(xs, [100 * r.largest_ratio for r in rows], "s--", color="tab:red",
               label="largest cluster")  # fmt: skip
    right.set_ylabel("largest cluster (% of documents)", color="tab:red")
    for r, x in zip(rows, xs, strict=True):
        if r.chosen:
            ax.axvline(x, color="grey", linewidth=0.8, linestyle=":")
    ax.set_title("Documents kept and largest cluster")
    fig.tight_layout()
    return fig


def _sizes_figure(distribution: Sequence[tuple[int, int, int]], tau: int) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4), dpi=100)
    ax = fig.add_subplot()
    ax.loglog([s for s, _, _ in distribution], [c for _, c, _ in distribution], "o")
    ax.set_xlabel("cluster size (documents)")
    ax.set_ylabel("clusters")
    ax.set_title(f"Cluster sizes at τ = {tau}")
    fig.tight_layout()
    return fig


def write_plots(
    rows: Sequence[Any],
    distribution: Sequence[tuple[int, int, int]],
    chosen_tau: int,
    path_of: Callable[[str], str],
    prefix: str,
) -> list[str]:
    """Draw the figures and save each as PNG and SVG at ``path_of(relpath)``; returns the
    relpaths (``<prefix>-tau``, ``<prefix>-tau128`` when such rows exist, ``<prefix>-sizes``)."""
    figures = []
    for axis in ("tau", "tau128"):
        mine = [r for r in rows if r.axis == axis]
        if mine:
            figures.append((f"{prefix}-{axis}", _threshold_figure(mine, axis)))
    if distribution:
        figures.append((f"{prefix}-sizes", _sizes_figure(distribution, chosen_tau)))
    import matplotlib

    written = []
    with matplotlib.rc_context({"svg.hashsalt": "crawlmill"}):  # the same ids every run
        for name, fig in figures:
            for fmt in FORMATS:
                relpath = f"{name}.{fmt}"
                metadata = {"Date": None} if fmt == "svg" else {"Software": None}
                fig.savefig(path_of(relpath), format=fmt, metadata=metadata)
                written.append(relpath)
    return written
