"""Toy workloads and specs several test files share (plain pytest imports modules beside the tests,
as ``env_play`` and ``sim_reference``; there is no ``tests`` package)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd

#: The DeepRM report's toy spec: two variants on a 2-resource, 20-step grid, 150 training steps.
DEEPRM_SPEC = {
    "env": {"num_res": 2, "time_horizon": 20, "max_job_len": 15, "res_slot": 10, "max_job_size": 10,
            "backlog_size": 60, "simu_len": 12, "episode_max_length": 60},
    "variants": {
        "discrete-image": {"env": {"num_nw": 10, "workload": "deeprm"}, "algos": ["a2c"]},
        "multibinary-image": {"env": {"num_nw": 5, "workload": "deeprm"}, "algos": ["a2c", "ppo"]},
    },
    "objectives": ["slowdown", "completion_time"],
    "baselines": ["sjf", "packer", "random"],
    "seeds": [0],
    "train": {"rate": 0.7, "steps": 150, "jobset_seed": 0, "num_jobsets": 2, "checkpoint_every": 100,
              "episodes_per_iteration": 2},
    "eval": {"rates": [0.3, 0.6, 0.7, 1.0], "box_rate": 0.7, "withheld_rate": 0.6, "episodes": 1,
             "jobset_seed": 1000, "deterministic": False},
}


def deeprm_spec(**eval_overrides) -> dict:
    """A fresh copy of ``DEEPRM_SPEC`` with ``eval`` values replaced."""
    spec = copy.deepcopy(DEEPRM_SPEC)
    spec["eval"].update(eval_overrides)
    return spec


def mrsch_tree(base: Path, parts: dict[str, int], days: int = 5) -> Path:
    """Splits ``{part: jobs}`` for S1-S5 on MRSch's toy machine (16 nodes, 8 burst-buffer units)."""
    from schedrl.workloads.swf import SWF_FIELDS, write_swf

    rng = np.random.default_rng(0)
    for k in range(1, 6):
        for part, n in parts.items():
            frame = pd.DataFrame({"job_id": np.arange(1, n + 1),
                                  "submit_time": np.sort(rng.uniform(0, days * 86_400, n)).round(),
                                  "wait_time": -1, "run_time": rng.integers(100, 4000, n), "alloc_procs": rng.integers(1, 9, n),
                                  "req_time": 4000, "bb_request": rng.integers(1, 5, n).astype(float)})
            frame["req_procs"] = frame["alloc_procs"]
            for col in SWF_FIELDS:
                if col not in frame:
                    frame[col] = -1
            frame.attrs["header"] = {"MaxNodes": "16", "MaxProcs": "16", "MaxBurstBufferUnits": "8"}
            (base / f"S{k}").mkdir(parents=True, exist_ok=True)
            write_swf(frame, base / f"S{k}" / f"{part}.swf")
    return base


def sem_split(folder: Path, n_jobs: int = 90, nodes: int = 64, *, seed: int = 3, span: int = 20_000,
              run_low: int = 60, sizes=(2, 4, 8, 16, 32), req_times=None) -> Path:
    """A small SEM split (60 training jobs in episodes of 20, 10 validation, 20 test jobs) in
    ``folder``: arrivals over ``span`` seconds, runtimes from ``run_low`` to 3,000 s; ``req_times``:
    requested times drawn from these (default 3,600 s for every job)."""
    from schedrl.workloads.splits import sem_split as split
    from schedrl.workloads.swf import SWF_FIELDS, write_swf

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"job_id": np.arange(1, n_jobs + 1), "submit_time": np.sort(rng.integers(0, span, n_jobs)),
                          "wait_time": -1, "run_time": rng.integers(run_low, 3_000, n_jobs), "alloc_procs": -1,
                          "req_procs": rng.choice(list(sizes), n_jobs)})
    frame["req_time"] = 3_600 if req_times is None else rng.choice(list(req_times), n_jobs)
    for col in ("status", "user_id", "queue"):
        frame[col] = 1
    for col in SWF_FIELDS:
        if col not in frame.columns:
            frame[col] = -1
    frame = frame[list(SWF_FIELDS)]
    frame.attrs["header"] = {"MaxProcs": str(nodes)}
    parts, manifest = split(frame, train_jobs=60, episode_jobs=20, val_jobs=10, test_jobs=20)
    folder.mkdir(parents=True, exist_ok=True)
    for name, part in parts.items():
        write_swf(part, folder / f"{name}.swf")
    (folder / "split.json").write_text(json.dumps(manifest))
    return folder


def study_pins(paper: str) -> dict:
    """The paper's ``STUDY_PINS``: the run lists its study's rule pins in the spec."""
    import importlib

    module = {"runtime": "experiments", "sem": "tuning"}.get(paper, "layout")
    return importlib.import_module(f"schedrl.papers.{paper}.{module}").STUDY_PINS


def as_the_rule_gives(paper: str, spec: dict) -> str:
    """``--spec`` as the paper's tune rule gives it (``config.study_spec_json``): the end-to-end tests
    run the study on the runs' lists pinned, as Snakemake gives it."""
    from schedrl.config import study_spec_json

    return study_spec_json(spec, study_pins(paper))
