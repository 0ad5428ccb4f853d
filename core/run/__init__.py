"""The run machinery (issue 21 item 1).

* :mod:`.stage`: one stage model for everything a run executes (:class:`~.stage.Stage`,
  :func:`~.stage.run_stages`: one commit rule that resumes and confirms);
* :mod:`.convert`: per-input conversion as a stage, and the run state the engine's
  mechanisms share;
* :mod:`.channel`: what a task and its executor share (channel, crash, ``Executor``);
* :mod:`.registries`: the plugin registries a worker process caches;
* :mod:`.spark_conf` and :mod:`.spark_worker`: the Spark settings check and the worker side
  shared by the Spark executor and its shuffle.

This package imports none of its modules itself, so any of them can be imported from the
modules they serve without an import circle.
"""
