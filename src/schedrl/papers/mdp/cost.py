"""The MDP-design paper's cost model: measured training and evaluation speed, for Snakemake's
``runtime`` resources (``train_minutes``, ``reference_minutes``) and a config's budget in core-hours
(``estimate_core_hours``, ``cost_total``, ``schedrl mdp cost``), on the faster machine kind and the
slower one (``SLOWER_MACHINE``).
"""

from __future__ import annotations

from schedrl.agents.sparse_setting import use_sparse
from schedrl.papers.mdp.evaluation import FINGERPRINT_TRIALS
from schedrl.papers.mdp.layout import (
    BASE,
    REFERENCE_AGENTS,
    Run,
    budget_fractions,
    budget_runs,
    only_scenarios,
    runs,
    scenario,
    transfer_variants,
)
from schedrl.papers.mdp.training import mlp_params, obs_size
from schedrl.report.budget import SLOWER_KIND

# Training CPU seconds per agent step of SB3 PPO with Table 2's hyperparameters on one core, as a
# function of the policy's parameter count: a + b * params, fitted on 2026-11-29 to the two 3 M-step
# runs of the paper-budget scale's scenario 3 on the faster machine kind (AVX-512 EPYC, two rules at
# a time; process CPU less PROCESS_SECONDS of start-up): compact + sparse + reduced (24,332
# parameters) 1,245 CPU-s, ~2,400 steps per CPU-second; image-like (1,089,548) 4,303 CPU-s, ~700.
# It put the smoke config's scenario-9 image-like command (1,821,708 parameters, 8,192 steps) at
# 22.5 CPU-s; measured 25.0 beside three other processes. The fit before, (8.96e-4, 2.0e-9), was
# made on 2026-11-26 to a default run whose machine kind went unrecorded; it was the slower kind's
# speed (its x1.06 below), 1.6-2.1x this kind's.
SECONDS_PER_STEP = (3.90e-4, 9.57e-10)
#: Cluster time limits: the cost model at a quarter of its speed (a loaded or slower node) + 10 min.
SAFETY = 4.0

#: Image-like training with the sparse-input first layer (issue 72; ``sparse_input: auto`` turns it
#: on from 1,024 inputs, so for every image-like state and no compact one) against the dense layer
#: the fit above was made with: PPO steps per CPU-second, sparse over dense, in two runs of
#: ``benchmarks/bench_sparse_input.py`` (2026-12-01, faster kind, other processes busy): scenario 3
#: 1.44x / 1.45x, 6 1.66x / 1.51x, 9 1.40x / 1.49x. The model divides the dense cost by the lowest.
SPARSE_SPEEDUP = 1.40


def train_seconds(run: Run, steps: int, net: list[int] | None = None) -> float:
    """CPU seconds of one training run; ``net``: a tuned recipe's hidden layers (``mdp.hyperparams.
    <variant>.net``) in place of Table 2's 64-64, counted by its parameters as the fit counts them
    (other hyperparameters of a recipe are not modelled)."""
    a, b = SECONDS_PER_STEP
    obs = obs_size(run.variant, run.scenario, run.horizon)
    dense = steps * (a + b * mlp_params(obs, hidden=net if net else 64))
    return dense / SPARSE_SPEEDUP if use_sparse("auto", obs) else dense


def recipe_net(spec: dict, variant: str) -> list[int] | None:
    """The hidden layers a tuned recipe gives ``variant`` (``mdp.hyperparams.<variant>.net``), else None."""
    net = ((spec.get("hyperparams") or {}).get(variant) or {}).get("net")
    return [int(n) for n in net] if net else None


def train_minutes(variant_name: str, scenario_id, horizon, steps: int, net: list[int] | None = None) -> int:
    """Snakemake ``runtime`` of one training run: ``SAFETY`` times the cost model, plus 10 minutes."""
    run = Run(int(horizon), variant_name, int(scenario_id), 0)
    return int(SAFETY * train_seconds(run, int(steps), net) / 60) + 10


# Evaluation seconds per agent step of a batched trial: env step plus a share of the forward pass,
# fitted to the 62 evaluation rules of the same run (1,000 trials each; start-up excluded): most of
# an evaluation rule is its start-up (5-11 CPU s in all, 17-42 before the batched trials).
EVAL_SECONDS_PER_STEP = (5e-6, 2.4e-11)
EVAL_STEPS_PER_TRIAL = 120  # agent steps of a 100-step episode (allocations add steps, sparse ones skip)
#: Recording one decision for a fingerprint (mask, window, heuristics' picks; issue 41), measured
#: 2026-11-26 on the loaded 2-core machine: ~60 us, as much as playing the step.
FINGERPRINT_SECONDS_PER_STEP = 6e-5
PROCESS_SECONDS = 5  # start-up of one 'schedrl' job (imports, model set-up; measured 3-5 CPU s)


def eval_seconds(run: Run, trials: int) -> float:
    a, b = EVAL_SECONDS_PER_STEP
    return trials * EVAL_STEPS_PER_TRIAL * (a + b * mlp_params(obs_size(run.variant, run.scenario, run.horizon)))


def estimate_core_hours(spec: dict) -> dict[str, float]:
    """Estimated core-hours of a config: training (cost model above), evaluation of every agent and
    of the transferred agents, and the start-up of every job."""
    steps, trials = int(spec["train"]["steps"]), int(spec["eval"]["trials"])
    all_runs = runs(spec)
    H = int(spec["horizon"])
    moved = [Run(H, name, int(s), 0) for name in transfer_variants(spec) for s in spec["scenarios"]] \
        * len(spec["seeds"])
    train = sum(train_seconds(r, steps, recipe_net(spec, r.variant)) for r in all_runs)
    evaluate = sum(eval_seconds(r, trials) for r in all_runs + moved)
    checkpoints = len(budget_fractions())
    budget = checkpoints * sum(eval_seconds(r, trials) for r in budget_runs(spec) + moved)
    bench = spec.get("fig5")
    timing = sum(train_seconds(Run(int(h), name, int(s), 0), int(bench["steps"]) + 50)
                 for name in ("image", "compact") for s in bench["scenarios"] for h in bench["horizons"]) if bench else 0.0
    # issue 41: recording the fingerprinted trials of every evaluation, and the two reference agents
    # playing every evaluation again (no training); SJF plays each scenario's trials once
    recorded = (len(all_runs) + len(moved)) * min(trials, FINGERPRINT_TRIALS) * EVAL_STEPS_PER_TRIAL
    record = recorded * FINGERPRINT_SECONDS_PER_STEP
    sjf = sum(eval_seconds(Run(H, BASE, int(s), 0), n) + n * EVAL_STEPS_PER_TRIAL * SJF_SECONDS_PER_STEP
              for s in spec["scenarios"] for n in [sjf_trials_played(trials, int(s))])
    # uniform play over all actions (issue 68): each scenario's trials in the base MDP once per seed,
    # counted as an evaluation of the base MDP's network (an upper bound: it runs no network)
    uniform = len(spec["seeds"]) * sum(eval_seconds(Run(H, BASE, int(s), 0), trials) for s in spec["scenarios"])
    references = len(REFERENCE_AGENTS) * (evaluate + record) + sjf + uniform
    jobs = 2 * len(all_runs) + len(budget_runs(spec)) + 2 * len(transfer_variants(spec)) * len(spec["seeds"]) + 14
    return {"train": train / 3600, "evaluate": (evaluate + record) / 3600, "budget": budget / 3600,
            "bench": timing / 3600, "references": references / 3600,
            "startup": jobs * PROCESS_SECONDS / 3600, "runs": len(all_runs)}


#: The parts of ``estimate_core_hours`` that sum to a config's core-hours.
COST_PARTS = ("train", "evaluate", "budget", "bench", "references", "startup")
#: SJF's pick (the slot jobs that fit now, the shortest) per agent step, on top of the env's step.
SJF_SECONDS_PER_STEP = 2e-5


def sjf_trials_played(trials: int, scenario_id: int) -> int:
    """Episodes the SJF rule plays in a scenario: SJF's and the hold rule's evaluation trials, and the
    hold rule's validation search (every length up to the longest job, ``references.choose_hold``)."""
    from schedrl.papers.mdp.references import HOLD_VALIDATION_TRIALS

    return 2 * trials + scenario(scenario_id).max_len * min(trials, HOLD_VALIDATION_TRIALS)

#: The slower machine kind (docs/cost-and-budgets.md) against this model: the smoke config's
#: scenario-9 image-like training command, 8,192 steps on one thread, took 44.6 CPU-s there (issue
#: 60, 2026-11-28) where the model says 22.5 with its start-up (x1.98; 25.0 measured on the faster
#: kind under load, x1.78). Compact runs (SB3's per-step overhead) have not been timed on the slower
#: kind; other papers' SB3 steps cost 1.4-2.6x there.
SLOWER_MACHINE = (SLOWER_KIND, 1.98)


def cost_total(spec: dict) -> float:
    cost = estimate_core_hours(spec)
    return float(sum(cost[k] for k in COST_PARTS))


def scenario_costs(spec: dict) -> dict[int, float]:
    """Per scenario, the core-hours of the spec narrowed to it (``only_scenarios``): what one
    recorded run of one scenario costs (``mdp_paper_budget_s<N>``), the no-learning references of
    that scenario and its share of the fixed jobs included."""
    return {int(s): cost_total(only_scenarios(spec, [s])) for s in spec["scenarios"]}


def cost_note(spec: dict) -> str:
    """What ``schedrl mdp cost`` can add to its line after the total (as the other papers' cost
    commands do): the slower machine kind, and with several scenarios each as its own run."""
    from schedrl.report.budget import on_slower_kind

    factor = SLOWER_MACHINE[1]
    note = on_slower_kind(cost_total(spec), factor) + " (image-like training timed there, compact not)"
    if len(spec["scenarios"]) > 1:
        note += "; per scenario (each a run of its own at the paper-budget scale: mdp_paper_budget_s<N>): " + ", ".join(
            f"scenario {s} ~{c:.2f} (slower kind ~{c * factor:.2f})" for s, c in scenario_costs(spec).items())
    tuned = [v for v in spec["variants"] if v in (spec.get("hyperparams") or {})]
    if tuned:  # what `snakemake mdp_tuned` trains: the recipe's variants alone
        alone = cost_total({**spec, "variants": tuned})
        n = len(spec["scenarios"]) * len(spec["seeds"])
        note += (f"; mdp_tuned ({', '.join(tuned)} alone, {n} runs) ~{alone:.2f} (slower kind ~{alone * factor:.2f}), "
                 f"~{alone / n:.2f} per scenario and seed")
    return note


def reference_minutes(spec: dict) -> int:
    """Snakemake ``runtime`` of one reference agent's job (every evaluation played once): ``SAFETY``
    times the cost model, plus 10 minutes."""
    hours = estimate_core_hours(spec)["references"] / len(REFERENCE_AGENTS)
    return int(SAFETY * hours * 60) + 10
