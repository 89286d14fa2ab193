"""The SEM paper's agent outputs as the long table of the normalised score (issue 68).

Workloads: each trace the agents are trained on (``sem.agents.traces``), on its SEM split's test
part; a synthetic stand-in (the log was not found) is named so (``theta (stand-in)``).

Headline metric: ``mean_wait``, the mean job wait over the test jobs in seconds, lower is better.
Section 5.2 compares the encodings on Fig. 9's four metrics; mean wait is the one the paper names
SEM the winner of on both traces (theta and datastar, ``paper_values.yaml``'s ``metric_winner``),
the one the claims place the heuristics on beside the agents (the Fig. 9 gap claim's note: FCFS+EASY
and SJF+EASY "on the same test jobs") and a mean over jobs (not one schedule-wide number as
utilisation or max wait). Mean slowdown is DRAS's win on Theta and its reward on DataStar, not the
paper's headline; its values are in each run's ``test.json`` beside the wait.

Every value is the greedy test pass (``test.json``): the protocol the no-learning references are
played under (one pass, the same test jobs), so every player is read the same way; the trained
agents' sampled play (``test_sampled.csv``, the claims' verdict reading) is not on this scale.

Players:

* random valid play (the anchor, role ``random``): uniform among the valid slots in DRAS's encoding
  (the prior work's env the paper compares against), one seed per training seed
  (``<trace>/dras/ref_random/``, ``seeds/<s>/ref_random/``); random valid play in SEM's encoding is
  role ``reference`` (its valid slots differ): scored, never the 0;
* heuristics: FCFS+EASY and SJF+EASY on the same test jobs (``<trace>/heuristics.csv``);
* agents: the SEM and DRAS agents (REINFORCE, Table 4's networks), each seed, and the variants beside
  them (another decision process, another reward: ``<encoder>/<variant>/``), first seed;
* untrained: each encoding's untrained network, each seed (``ref_untrained/``).

Uniform play over all actions is not a gap here (the issue lists it for the grid and time-stepped
envs). The paper's own agents are not placed (``AUTHORS_GAP``): Fig. 9 sets SEM beside DRAS only,
no heuristic, and prints no values (Kiviat axes normalised to the best method, with the largest
SEM-DRAS gap of 4% / 6% in the text).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from schedrl.errors import ConfigError
from schedrl.io import read_json
from schedrl.report.normalised import PLACED, long_rows, missing_gap

PAPER = "sem"
METRIC = "mean_wait"
ROOT = "results/sem/agents"
ENCODERS = {"dras": "DRAS", "sem": "SEM"}
ANCHOR_ENCODER = "dras"  # random valid play in this encoding is the 0
AUTHORS_GAP = {"paper": PAPER, "player": "paper's SEM and DRAS agents" + PLACED,
               "gap": "not placed: the paper reports no heuristic beside its agents (Fig. 9 compares SEM with "
               "DRAS only) and prints no metric values, only Kiviat shapes and the largest SEM-DRAS gap"}


def load_spec(text: str) -> dict:
    """The ``sem`` config section from JSON text (what ``schedrl normalised`` passes)."""
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"sem: the config section is not JSON: {exc}") from None
    if not isinstance(spec, dict):
        raise ConfigError("sem: the config section is not a mapping")
    return spec


def variants(agents: dict, trace: str) -> list[str]:
    """The variant folders of ``trace`` the rules train (``process_<p>``, ``reward_<r>``)."""
    out = [f"process_{p}" for p in (agents.get("extra_processes") or {}).get(trace, [])]
    reward = (agents.get("aligned_rewards") or {}).get(trace)
    return out + ([f"reward_{reward}"] if reward else [])


def long_table(spec: dict, root: str | Path = ROOT) -> tuple[pd.DataFrame, list[dict]]:
    """(long table, gaps): every player's mean test wait per trace; a gap row per player whose
    test is not on disk (not built yet)."""
    from schedrl.papers.sem.figures import variant_label

    agents = spec.get("agents") or {}
    if not agents.get("traces"):
        return pd.DataFrame(), [{"paper": PAPER, "player": "all", "gap": "no sem.agents.traces in the config"}]
    root = Path(root)
    base = int(agents.get("seed", 0))
    seeds = [base] + [int(s) for s in agents.get("extra_seeds", []) if int(s) != base]
    rows, gaps = [], []
    for trace in agents["traces"]:
        found = []  # (player, role, seed, test.json)

        def add(path, player, role, seed, found=found):
            path = Path(path)
            if not path.is_file():
                gaps.append(missing_gap(PAPER, player, path))
                return
            found.append((player, role, seed, read_json(path)))

        for enc, label in ENCODERS.items():
            for seed in seeds:
                folder = root / trace / enc if seed == base else root / trace / enc / "seeds" / str(seed)
                add(folder / "test.json", f"{label} agent", "agent", seed)
                add(folder / "ref_random" / "test.json", f"random valid in {label}'s encoding",
                    "random" if enc == ANCHOR_ENCODER else "reference", seed)
                add(folder / "ref_untrained" / "test.json", f"untrained {label}", "untrained", seed)
            for variant in variants(agents, trace):
                add(root / trace / enc / variant / "test.json", f"{label} agent {variant_label(variant)}", "agent", base)
        stand_in = any(test.get("stand_in") for *_, test in found)
        workload = f"{trace} (stand-in)" if stand_in else trace
        for player, role, seed, test in found:
            if test.get(METRIC) is None:
                gaps.append({"paper": PAPER, "player": player, "gap": f"{trace} seed {seed}: no {METRIC} in its test.json"})
                continue
            rows.append(long_rows(PAPER, workload, player, role, seed, METRIC, "lower", test[METRIC]))
        heuristics = root / trace / "heuristics.csv"
        if not heuristics.is_file():
            gaps.append(missing_gap(PAPER, "FCFS+EASY, SJF+EASY", heuristics))
        else:
            for _, h in pd.read_csv(heuristics).iterrows():
                rows.append(long_rows(PAPER, workload, h["method"], "heuristic", 0, METRIC, "lower", h[METRIC]))
    gaps.append(dict(AUTHORS_GAP))
    return pd.DataFrame(rows), gaps
