"""Algorithms over records' bytes and text (simhash, near-duplicate clusters, language, page text, TREC runs, sorted lines).

The same layer as :mod:`crawlmill.formats`: nothing here imports ``crawlmill.core`` or ``crawlmill.plugins`` at run time."""
