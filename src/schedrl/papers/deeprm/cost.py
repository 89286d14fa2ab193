"""DeepRM experiments of the SB3 report: the cost model (``schedrl deeprm cost``).

Rates measured on the 2-vCPU development machine (SB3 training per algorithm and variant, DeepRM's
REINFORCE trainer, evaluation, rule start-up, the report protocol's checks during training), the
slower machine kind's factor (``SLOWER_MACHINE``), the Snakemake rules' cluster time limits
(``train_minutes``, ``agent_minutes``, ``SAFETY``) and the core-hours of a ``deeprm`` section
(``estimate_core_hours``, its parts ``COST_PARTS``). It counts what ``layout`` and ``training``
say runs; nothing here trains or plays.
"""

from __future__ import annotations

import numpy as np

from schedrl.papers.deeprm.layout import (
    REPLAY_SAMPLING_SEEDS,
    agent_runs,
    deeprm_agent_runs,
    reference_runs,
    replay_runs,
)
from schedrl.papers.deeprm.training import deeprm_agent_iterations, report_selection, run_steps
from schedrl.report.budget import SLOWER_KIND

#: SB3 training, env steps per CPU-second of a whole rule (start-up included) by (algo, variant):
#: the slowest run of each in the default run of 2026-11-25 (`snakemake deeprm --cores 2` with the
#: machine otherwise idle; torch's fused Adam). TRPO's multi-binary and phase-1 rates were not in
#: that run: its discrete-image ratio to the earlier rates (x1.96) applied. Rates measured the same
#: day with other sessions' processes busy were 2-4x lower (the process CPU time of a loaded
#: 2-vCPU machine grows with the load), so a loaded machine can take up to that much longer.
#: A run of N steps costs N / rate. Unlisted variants take the algorithm's slowest rate.
TRAIN_STEPS_PER_S = {
    "a2c": {"discrete-image": 1030.0, "multibinary-image": 1600.0, "discrete-stacked": 2130.0,
            "multibinary-stacked": 2830.0},
    "ppo": {"discrete-image": 1650.0, "multibinary-image": 2300.0, "discrete-stacked": 2770.0},
    "dqn": {"discrete-image": 516.0, "discrete-stacked": 1210.0},
    "trpo": {"discrete-image": 1956.0, "multibinary-image": 2130.0, "discrete-stacked": 2060.0},
    # the tuned recipe (config/tuned/deeprm.yml: T 64, 10 epochs of 64, LeanMaskablePolicy with the
    # sparse-input layers): its seed-0 run of 2026-12-03 (0143868, faster kind), the 250k steps after its
    # resume in 400 CPU-s less 15 s of report-protocol checks; two other training runs shared the 2 cores,
    # so an idle machine's rate is higher (this one prices the run from above)
    "maskable_ppo": {"discrete-image": 660.0},
}
#: These are the faster machine kind's (AVX-512). On the slower kind sessions also get (AMD EPYC at
#: 2.45 GHz, AVX2 only; 2026-11-27) a real training rule (discrete-image, slowdown, 40k steps, one
#: other rule beside it) ran A2C at 421 and PPO at 620 steps per CPU-second, start-up included:
#: ~2.4x these rates' CPU (the other rules not measured there; taken alike).
#: Refitted 2026-11-28 to the default run there (config of 836d329, three pieces): 5.80 core-hours
#: exact (4.98 in the rules' benchmark files) where this model said 2.07 x 2.4 = 4.97; SB3 ran
#: x2.7-3.4 (DQN) and x3.4-3.9 (multi-binary) slower than these rates. Since then an agent's
#: evaluations run in one rule and Snakemake's scheduler wakes a tenth as often (profiles/default):
#: that run's rules re-added for today's config (DQN 100k) come to 4.26 core-hours, 4.86 with the
#: 14% its last piece spent outside the benchmark files; 4.86 / 1.85 modelled = x2.6.
SLOWER_MACHINE = (SLOWER_KIND, 2.6)
#: The parts of ``estimate_core_hours`` that add up to the run's core-hours (the rest are counts).
COST_PARTS = ('sb3', 'deeprm_agent', 'evaluate', 'startup', 'references', 'selection')
#: DeepRM's REINFORCE trainer (compiled batched env step): env steps per CPU-second of a real rule
#: and env steps per trajectory at the training rate 0.7, from the default run of 2026-11-25 (idle
#: machine): 1,000 iterations at 0.7 (10 x 20 trajectories) = 37.7 M env steps in 522 CPU-s,
#: start-up included (44 k/CPU-s with the machine loaded the same day); lighter loads end sooner,
#: so other rates are counted at 0.7's length (an upper bound).
PG_STEPS_PER_S = 72000.0
PG_STEPS_PER_TRAJECTORY = 189.0
#: Evaluation: policy steps per CPU-second (bench_agents.py "eval steps/s") and mean steps of an
#: episode run to the end; each rule also pays its Python start-up (torch, SB3, numba imports).
EVAL_STEPS_PER_S = 2800.0
EVAL_STEPS_PER_EPISODE = 250.0
STARTUP_S = 6.0
#: ``report_selection``: process CPU-seconds of one check episode (sampled, untrained 64-64 A2C
#: network on the default env's seed-42 sequence at rate 0.7, episode_max_length 2000; mean of 20,
#: 2026-11-26, nice 19 beside a 2-core benchmark): discrete-image 171 steps, multibinary-image 69,
#: discrete-stacked 110, multibinary-stacked 78 (the smoke runs' trained agents and the authors'
#: SB2 agents play episodes as long as the random policy's, so the untrained network stands in).
#: TRPO's network costs the same (0.0596 s). Unlisted variants take the largest.
SELECTION_CHECK_S = {"discrete-image": 0.0594, "multibinary-image": 0.0207, "discrete-stacked": 0.0323,
                     "multibinary-stacked": 0.0222}


#: Since 2026-11-28 the actor-critic runs train with ``LeanMlpPolicy`` and A2C with the exact-root
#: RMSprop (the same numbers): ``bench_trainers.py --sb3-own`` on the slower kind, 4,000 steps with
#: start-up, measured these speed-ups over SB3's own on discrete-image (A2C on multi-binary 1.36),
#: taken for every variant and for the faster kind too (not measured there).
LEAN_SPEEDUP = {"a2c": 1.32, "ppo": 1.24, "trpo": 1.14}


def train_rate(algo: str, variant: str) -> float:
    rates = TRAIN_STEPS_PER_S.get(algo, {"": 250.0})
    return rates.get(variant, min(rates.values())) * LEAN_SPEEDUP.get(algo, 1.0)


#: Cluster time limits: the cost model's rates (an idle machine's) at a quarter speed (a loaded or
#: slower node: loaded rates here were 2-4x lower) plus 10 minutes.
SAFETY = 4.0


def train_minutes(spec: dict, algo: str, variant: str, objective: str) -> int:
    """Time limit of one SB3 training rule (its report-protocol checks included)."""
    steps = run_steps(spec, variant, algo, objective)
    seconds = steps / train_rate(algo, variant)
    sel = report_selection(spec)
    if sel is not None:
        seconds += steps // sel["check_every"] * sel["episodes"] * SELECTION_CHECK_S.get(
            variant, max(SELECTION_CHECK_S.values()))
    return int(SAFETY * seconds / 60) + 10


def agent_minutes(spec: dict, rate: float | str) -> int:
    """Time limit of one DeepRM-agent training rule."""
    agent = spec.get("deeprm_agent") or {}
    steps = deeprm_agent_iterations(spec, float(rate)) * int(agent.get("jobsets", 0)) \
        * int(agent.get("trajectories", 0)) * PG_STEPS_PER_TRAJECTORY
    return int(SAFETY * steps / PG_STEPS_PER_S / 60) + 10


def estimate_core_hours(spec: dict) -> dict:
    """Core-hours of a deeprm section by the rates above: SB3 training, the DeepRM agent, evaluations
    (both protocols, every rate; budget checkpoints at three shares, one rate; the report protocol's
    replays), rule start-up, the no-learning references and the report protocol's checks during
    training (``report_selection``)."""
    ev = spec["eval"]
    sb3, runs, steps, checks, selection = 0.0, 0, 0, 0, 0.0
    sel = report_selection(spec)
    for variant in spec["variants"]:
        for algo, objective, _ in agent_runs(spec, variant):
            sb3 += run_steps(spec, variant, algo, objective) / train_rate(algo, variant)
            steps += run_steps(spec, variant, algo, objective)
            runs += 1
            if sel is not None:
                n = run_steps(spec, variant, algo, objective) // sel["check_every"]
                checks += n
                selection += n * sel["episodes"] * SELECTION_CHECK_S.get(variant, max(SELECTION_CHECK_S.values()))
    rates = len(ev["rates"])
    episodes = rates * int(ev["episodes"]) + rates * int((ev.get("report") or {}).get("episodes", 1))
    budget_episodes = 3 * (int(ev["episodes"]) + int((ev.get("report") or {}).get("episodes", 1)))
    pg_runs = deeprm_agent_runs(spec) if spec.get("deeprm_agent") else []
    agent = spec.get("deeprm_agent") or {}
    pg = sum(deeprm_agent_iterations(spec, r) for r, _ in pg_runs) * int(agent.get("jobsets", 0)) \
        * int(agent.get("trajectories", 0)) * PG_STEPS_PER_TRAJECTORY / PG_STEPS_PER_S
    replays = len(replay_runs(spec))  # the report protocol replayed REPLAY_SAMPLING_SEEDS times at the box rate
    played = (runs + len(pg_runs) + len(spec["baselines"]) * len(spec["variants"])) * episodes \
        + (runs + sum(1 for r, _ in pg_runs if np.isclose(r, ev["box_rate"]))) * budget_episodes \
        + replays * REPLAY_SAMPLING_SEEDS * int((ev.get("report") or {}).get("episodes", 1))
    # rules: an SB3 run's evaluation (every protocol), budget checkpoints and replay, a heuristic's
    # evaluation, a DeepRM-agent run's evaluation (the box rate's also greedy and budgets), figures and tables
    box_pg = sum(1 for r, _ in pg_runs if np.isclose(r, ev["box_rate"]))
    rules = 2 * runs + replays + len(spec["baselines"]) * len(spec["variants"]) + len(pg_runs) + 2 * box_pg + 30
    # no-learning references (issue 41): one rule each plays every protocol, greedy at the box rate
    refs = len(reference_runs(spec))
    ref_episodes = episodes + int(ev["episodes"])
    references = refs * (ref_episodes * EVAL_STEPS_PER_EPISODE / EVAL_STEPS_PER_S + STARTUP_S)
    return {"runs": runs, "sb3": sb3 / 3600, "steps": steps, "deeprm_agent": pg / 3600, "pg_runs": len(pg_runs),
            "evaluate": played * EVAL_STEPS_PER_EPISODE / EVAL_STEPS_PER_S / 3600, "startup": rules * STARTUP_S / 3600,
            "references": references / 3600, "reference_runs": refs, "selection": selection / 3600,
            "selection_checks": checks}
