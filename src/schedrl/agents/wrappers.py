"""Gymnasium wrappers used while training and evaluating agents.

``JobMetricsInfo`` turns the per-job table a scheduling env reports at episode end
(``info["jobs"]``: one row per job; a ``state`` column, where present, tells finished ones) into scalar episode metrics in ``info`` (mean slowdown,
mean completion time, jobs finished), so SB3's Monitor and the learning-curve logger can record
them beside the episode reward. ``INFO_KEYWORDS`` lists the keys it adds.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np


def job_metrics(jobs) -> dict[str, float]:
    """Mean slowdown / completion time and count of a per-job table (DataFrame, dict or records)."""
    import pandas as pd

    frame = jobs if isinstance(jobs, pd.DataFrame) else pd.DataFrame(jobs)
    # tables with a "state" column (the DeepRM grid's) also list running and waiting jobs
    finished = (frame["state"] == "finished").sum() if "state" in frame.columns else len(frame)
    out = {"jobs_finished": float(finished)}
    for column in ("slowdown", "completion_time"):
        if len(frame) and column in frame.columns:
            out[f"mean_{column}"] = float(np.mean(frame[column].to_numpy(dtype=float)))
        else:
            out[f"mean_{column}"] = float("nan")
    return out


class JobMetricsInfo(gym.Wrapper):
    """Add ``mean_slowdown``, ``mean_completion_time`` and ``jobs_finished`` to the final info."""

    INFO_KEYWORDS = ("mean_slowdown", "mean_completion_time", "jobs_finished")

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            info = dict(info)
            info.update(job_metrics(info.get("jobs", [])))
        return obs, reward, terminated, truncated, info

    def action_masks(self):
        return self.env.get_wrapper_attr("action_masks")()


class IntegerObservation(gym.ObservationWrapper):
    """Observations cast to integers (fractions truncated toward 0), as Stable-Baselines 2 fed them
    to a model whose observation space was ``Box(dtype=int64)``: the SB3 DeepRM report's agents saw
    the machine's fractional colour values as 0. The space keeps its shape and becomes int64."""

    def __init__(self, env):
        super().__init__(env)
        space = env.observation_space
        self.observation_space = gym.spaces.Box(np.floor(space.low).astype(np.int64),
                                                np.floor(space.high).astype(np.int64) if np.isfinite(space.high).all()
                                                else np.iinfo(np.int64).max, shape=space.shape, dtype=np.int64)

    def observation(self, observation):
        return np.asarray(observation).astype(np.int64)

    def action_masks(self):
        return self.env.get_wrapper_attr("action_masks")()
