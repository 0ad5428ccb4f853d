"""The ``crawlmill`` command (:mod:`.cli`) and the commands beside it that are no pipeline run (``get``, ``dedup-runs``)."""
