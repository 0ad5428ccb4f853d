"""The run machinery: one stage model (:mod:`.stage`) for every kind of work a run executes,
and per-input conversion as a stage (:mod:`.convert`)."""

from .stage import Outcome, Stage, StageRun, run_stages

__all__ = ["Outcome", "Stage", "StageRun", "run_stages"]
