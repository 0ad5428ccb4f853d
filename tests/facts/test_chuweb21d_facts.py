"""Facts of the Chuweb21D paper (../shared/specs/source-docs/chuweb21d-paper.txt) that are
parameters of crawlmill's cleaning and dedup, checked against the paper's own formulas and
words; docs/source-facts.md lists each fact and its test. Line numbers ("L172") are the
paper's."""

from __future__ import annotations

import importlib
import re
from math import comb
from pathlib import Path

import yaml
from crawlmill.plugins.filters.simhash_dedup import SimhashDedupFilter

ROOT = Path(__file__).resolve().parents[2]


def _cluster_module():
    """The simhash clustering module."""
    return importlib.import_module("crawlmill.algorithms.simhash_cluster")


def _paper_p_t(tau: int, b: int = 16, t: int = 20) -> float:
    """L172: p_0 = C(64 - h, B) / C(64, B) at h = tau (its lower bound); p_T = 1 - (1 - p_0)^T."""
    p0 = comb(64 - tau, b) / comb(64, b)
    return 1 - (1 - p0) ** t


def test_bucketing_defaults_are_the_papers_b_and_t():
    """L172 "In our experiments, we set *B* and *T* equal to 16 and 20"; L225 "Initialize
    hyper-parameter B = 16, T = 20"."""
    options = SimhashDedupFilter.Options()
    assert (options.bits, options.rounds) == (16, 20)


def test_the_papers_recall_bound_holds_and_is_our_formula():
    """L172 "It is not hard to verify that $p_T > 97\\%$ for any $\\tau \\le 6$ under this
    setting": the paper's formula computed here, against our ``bucketing_recall``."""
    recall = _cluster_module().bucketing_recall
    for tau in range(7):
        assert _paper_p_t(tau) > 0.97, tau
        assert abs(recall(tau) - _paper_p_t(tau)) < 1e-12, tau
    assert _paper_p_t(7) < 0.97  # the bound is the paper's "tau <= 6", not looser


def test_enumeration_cost_of_tau_3():
    """L166 "Its time complexity for each document d is $O(\\sum_{k=0}^{\\tau} ...)$. Since we
    set $\\tau \\leq 3$, the total time complexity is upper-bounded to ... (O(43745N))": the
    64-bit codes within Hamming distance 3 of a code number 43,745."""
    assert sum(comb(64, k) for k in range(4)) == 43745


def test_the_example_pipeline_follows_the_papers_cleaning_and_thresholds():
    """L109 "The WARC-Type of the record must be "response""; L227 "ChuwebD-70 ($\\tau = 2$)
    and ChuwebD-60 ($\\tau = 3$)" (docs/examples/chuweb21d.yaml: tau 3 by default, 2 for D-70);
    L188-196 Table 2's thresholds 0-3 as the statistics."""
    text = (ROOT / "docs" / "examples" / "chuweb21d.yaml").read_text(encoding="utf-8")
    assert "Chuweb21D-70 is tau 2, Chuweb21D-60 tau 3" in text
    assert re.search(r"^    tau: \$\{TAU:-3\}", text, re.M)  # ChuwebD-60 unless TAU=2
    config = yaml.safe_load(re.sub(r"\$\{[^}]*\}", "x", text))
    filters = {f["name"]: f for f in config["filters"]}
    assert filters["kind"]["keep"] == ["response"]
    assert filters["simhash-dedup"]["thresholds"] == [0, 1, 2, 3]
