"""What the MDP-design paper (mdp-design.txt, sections 4-5) runs and where its results go.

The paper's constants and the config section (``mdp:``), and the layout of ``results/mdp`` that the
Snakemake rules, the CLI, the claims and the figures share; the bottom of the package's modules
(``training``, ``evaluation``, ``references`` and ``cost`` import it, it imports none of them).

What runs
---------
* **Scenarios** (Table 3): one resource (processors) with ``n_p`` units, jobs of at most ``d`` time
  steps and ``j_s`` processors (``SCENARIOS``).
* **Variants** (``VARIANTS``): the paper's MDPs as named combinations of options of the one env
  ``schedrl/DeepRM-v0`` (``obs_mode``, ``transitions``, ``reward``, and for sparse transitions
  ``skipped_reward="charge"``: sched-rl-gym's rule, an allocation keeps the clock and waiting is
  charged once where the agent is asked again; issue 36); see ``Variant``
  and the env's docstring for what each option does. The second experiment set ("event-based simulation and
  bounded rewards, in dense and compact MDPs") is ``image-sparse-reduced`` and
  ``compact-sparse-reduced``: sched-rl-gym's event-based simulator is the sparse transition and its
  "bounded" reward is the window ("reduced") reward (see ``VARIANTS``).
* **Fixed setup** (section 5): W = 10 job slots, simulations of T = 100 time steps (arrivals during
  100 steps, episode truncated at step 100), a Bernoulli(0.3) arrival per step, 80% small jobs
  (length U{1..d/5}, large U{2d/3..d}, processors U{j_s/2..j_s}: the env's ``cunha`` workload),
  backlog 60 (DeepRM's and sched-rl-gym's default), jobs start now or wait (``placement="now"``:
  sched-rl-gym allocates at the current time only; it also lets d = 48 exceed H = 20). The image's
  job slots are ``n_p`` columns wide (``max_job_size = n_p``), as sched-rl-gym draws them, so the
  parameter counts are the paper's.

Layout: ``run_dir`` / ``transfer_dir`` (and ``reference_root`` for the no-learning references);
the Snakemake rules build their path patterns from these functions called with wildcards, and ask
for the file lists below (``evaluation_files``, ``claims_inputs``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedrl.config import run_spec_json
from schedrl.errors import ConfigError

ROOT = "results/mdp"
ENV_ID = "schedrl.envs:schedrl/DeepRM-v0"
WRAPPERS = ("schedrl.agents.wrappers:JobMetricsInfo",)
ALGO = "ppo"
HYPERPARAMS_VARIANT = "mdp"  # block of hyperparams/ppo.yaml holding Table 2
MASKED_ALGO = "maskable_ppo"  # a variant's ``hyperparams.mask`` (beyond the paper; maskable_ppo.yaml's mdp block: Table 2)
#: Values a variant's ``hyperparams`` block (``mdp.hyperparams.<variant>``, beyond the paper: a tuned
#: recipe, issue 69) may set over Table 2, under rl-zoo3's names; ``net``: the hidden layers of the
#: separate pi and vf nets (Table 2's: SB3's default 64-64, tanh kept); ``mask``: train sb3-contrib's
#: MaskablePPO on the env's ``action_masks()`` (slots whose job fits now, and the void action).
#: ``training.hyperparams_override`` applies them.
HYPERPARAM_KEYS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef",
                   "clip_range", "vf_coef", "max_grad_norm", "net", "mask")

# Section 5's environment, the same for every scenario and MDP.
FIXED_ENV: dict[str, Any] = {
    "num_res": 1,
    "num_nw": 10,               # W = 10 job slots
    "backlog_size": 60,
    "simu_len": 100,            # T = 100: jobs arrive during 100 time steps ...
    "episode_max_length": 100,  # ... and the simulation stops at step 100
    "new_job_rate": 0.3,
    "workload": "cunha",
    "placement": "now",
}


@dataclass(frozen=True)
class Scenario:
    """One row of Table 3."""

    id: int
    procs: int      # n_p, processors in the cluster
    max_len: int    # d, maximum job length (time steps)
    max_size: int   # j_s, maximum processors of a job


# Table 3 (the text says n_p in {10, 32, 64}; Table 3 and the parameter counts use 38).
SCENARIOS: dict[int, Scenario] = {s.id: s for s in (
    Scenario(1, 10, 15, 10), Scenario(2, 10, 48, 10), Scenario(3, 38, 15, 32), Scenario(4, 38, 33, 32),
    Scenario(5, 38, 48, 32), Scenario(6, 64, 15, 64), Scenario(7, 64, 33, 32), Scenario(8, 64, 33, 64),
    Scenario(9, 64, 48, 32), Scenario(10, 64, 48, 64),
)}


@dataclass(frozen=True)
class Variant:
    """One MDP: env options and the paper's name for it."""

    obs_mode: str
    transitions: str
    reward: str
    label: str
    source: str
    # sparse transitions: what skipped time earns (the env's ``skipped_reward``); the paper's MDPs
    # use sched-rl-gym's "charge" rule (issue 36), "-zero" / "-sum" twins the other readings
    skipped_reward: str = "sum"


# The paper's MDPs (sections 4.1-4.4 and the second experiment set of section 4). Names say which
# changes of sections 4.2-4.4 are applied to the base MDP.
VARIANTS: dict[str, Variant] = {
    "image": Variant("image", "dense", "slowdown", "image-like", "section 4.1 (base MDP, DeepRM)"),
    "compact": Variant("compact", "dense", "slowdown", "compact", "section 4.2"),
    "compact-sparse": Variant("compact", "sparse", "slowdown", "compact + sparse", "section 4.3", "charge"),
    "compact-sparse-reduced": Variant("compact", "sparse", "slowdown_window", "compact + sparse + reduced",
                                      "section 4.4; = compact + event-based + bounded (second set)", "charge"),
    "image-sparse-reduced": Variant("image", "sparse", "slowdown_window", "image-like + sparse + reduced",
                                    "second set: dense (image) state, event-based, bounded reward", "charge"),
}
# The other readings of section 4.3, each the same MDP with another ``skipped_reward``:
# ``<sparse variant>-sum`` (issue 25: the skipped time steps' rewards summed into the step that
# skips them, so training optimises the slowdown the evaluation measures) and ``-zero`` (the
# paper's sentence alone: skipped time earns 0, so every work-conserving order earns the same
# return; the verdict reading until issue 36).
SUM_SUFFIX, ZERO_SUFFIX = "-sum", "-zero"
for _name in [n for n, v in VARIANTS.items() if v.transitions == "sparse"]:
    _v = VARIANTS[_name]
    VARIANTS[_name + SUM_SUFFIX] = Variant(_v.obs_mode, _v.transitions, _v.reward, _v.label + " (skipped time charged)",
                                           _v.source + "; skipped time steps charged (sum)", "sum")
    VARIANTS[_name + ZERO_SUFFIX] = Variant(_v.obs_mode, _v.transitions, _v.reward, _v.label + " (skipped time free)",
                                            _v.source + "; skipped time steps earn zero", "zero")
FIG4_VARIANTS = ("image", "compact", "compact-sparse", "compact-sparse-reduced", "image-sparse-reduced",
                 "compact-sparse-sum", "compact-sparse-reduced-sum", "image-sparse-reduced-sum")


def sum_twin(name: str) -> str | None:
    """The skipped-time-charged twin of a sparse variant (None for dense ones)."""
    twin = name + SUM_SUFFIX
    return twin if twin in VARIANTS else None
BASE = "image"        # Fig. 4's reference MDP
PROPOSED = "compact-sparse-reduced"  # the MDP the paper's Fig. 4 claims are about


def variant(name: str) -> Variant:
    if name not in VARIANTS:
        raise ConfigError(f"unknown MDP variant '{name}' (choose from: {', '.join(VARIANTS)})")
    return VARIANTS[name]


def scenario(sid: int | str) -> Scenario:
    sid = int(sid)
    if sid not in SCENARIOS:
        raise ConfigError(f"unknown scenario {sid} (Table 3 has 1..{len(SCENARIOS)})")
    return SCENARIOS[sid]


def env_kwargs(variant_name: str, scenario_id: int | str, horizon: int | str, *,
               transitions: str | None = None, jobset_seed: int | None = None,
               num_jobsets: int = 1) -> dict[str, Any]:
    """Keyword arguments of ``schedrl/DeepRM-v0`` for one MDP, scenario and horizon H.

    ``transitions`` overrides the variant's (transfer evaluation); ``jobset_seed=None`` draws a fresh
    job set per episode (training), an int fixes them (evaluation).
    """
    v, s = variant(variant_name), scenario(scenario_id)
    return {**FIXED_ENV, "time_horizon": int(horizon), "res_slot": s.procs, "max_job_size": s.procs,
            "workload_max_job_size": s.max_size, "max_job_len": s.max_len, "obs_mode": v.obs_mode,
            "transitions": transitions or v.transitions, "skipped_reward": v.skipped_reward,
            "reward": v.reward, "jobset_seed": jobset_seed,
            "num_jobsets": int(num_jobsets)}


# ---------------------------------------------------------------------------------------------
# The config section (``mdp:``): which scenarios, variants, horizons and seeds run, and how long.

def load_spec(text: str) -> dict:
    """The ``mdp`` config section from JSON text or a config YAML file, schema- and cross-checked."""
    from schedrl.config import load_section

    return check_spec(load_section(text, "mdp"))


def check_spec(spec: dict) -> dict:
    """Cross-key checks the JSON schema cannot express; ConfigError names the key. ``fig3``,
    ``transfer``, ``horizon_study`` and ``fig5`` may be null (a scale that trains only the runs behind
    Fig. 4, config/paper-budget.yaml): their claims then read "not comparable". The study's block
    (``mdp.tune``) is checked by ``tuning.tune_spec``, on the whole section where the rule file reads it."""
    scenarios, variants = list(spec["scenarios"]), list(spec["variants"])
    for sid in scenarios:
        scenario(sid)
    for name in variants:
        variant(name)
    for name in variants:
        for suffix in (SUM_SUFFIX, ZERO_SUFFIX):
            if name.endswith(suffix) and name[:-len(suffix)] not in variants:
                raise ConfigError(f"mdp.variants: '{name}' is another reading of '{name[:-len(suffix)]}', "
                                  "which must run too")
    if BASE not in variants:
        raise ConfigError(f"mdp.variants must hold '{BASE}' (the base MDP every comparison refers to)")
    for sid in fig3_scenarios(spec):
        if sid not in scenarios:
            raise ConfigError(f"mdp.fig3.scenarios: {sid} is not one of mdp.scenarios")
    if fig3_scenarios(spec) and "compact" not in variants:
        raise ConfigError("mdp.variants must hold 'compact' (Fig. 3 contrasts it with 'image'; or set mdp.fig3 null)")
    t = spec.get("transfer")
    if t is not None:
        if t["variant"] not in variants or variant(t["variant"]).obs_mode != "compact":
            raise ConfigError("mdp.transfer.variant must be a compact variant of mdp.variants (only the "
                              "compact state has the same size in every scenario)")
        if t["scenario"] not in scenarios:
            raise ConfigError(f"mdp.transfer.scenario {t['scenario']} is not one of mdp.scenarios")
    for sid in (spec.get("fig5") or {}).get("scenarios", []):
        scenario(sid)
    for name, block in (spec.get("hyperparams") or {}).items():
        variant(name)
        for key in block or {}:
            if key not in HYPERPARAM_KEYS:
                raise ConfigError(f"mdp.hyperparams.{name}.{key}: not a value a variant's runs take here "
                                  f"(choose from: {', '.join(HYPERPARAM_KEYS)})")
    train = spec["train"]
    if int(train["steps"]) % (8 * int(train["checkpoint_every"])):
        raise ConfigError("mdp.train.checkpoint_every must divide mdp.train.steps / 8 (the budget evaluations "
                          "read the checkpoints at 1/8, 1/4 and 1/2 of training)")
    study = horizon_study(spec)
    if study is not None:
        if study["horizon"] == spec["horizon"]:
            raise ConfigError("mdp.horizon_study.horizon must differ from mdp.horizon")
        for sid in study["scenarios"]:
            if sid not in scenarios:
                raise ConfigError(f"mdp.horizon_study.scenarios: {sid} is not one of mdp.scenarios")
        for name in study["variants"]:
            if name not in variants:
                raise ConfigError(f"mdp.horizon_study.variants: '{name}' is not one of mdp.variants")
    return spec


# The parts of the design a scale may leave out (null in its config): each helper says what runs.

def fig3_scenarios(spec: dict) -> list[int]:
    """Scenarios of Fig. 3's learning-curve panels ([] when ``fig3`` is null)."""
    return [int(s) for s in (spec.get("fig3") or {}).get("scenarios", [])]


def horizon_study(spec: dict) -> dict | None:
    """The second-horizon study (None when ``horizon_study`` is null)."""
    return spec.get("horizon_study") or None


def transfer_spec(spec: dict) -> dict | None:
    """Fig. 6's transfer (None when ``transfer`` is null)."""
    return spec.get("transfer") or None


def only_scenarios(spec: dict, scenarios) -> dict:
    """The spec narrowed to ``scenarios`` (one recorded run per scenario, the per-scenario claims):
    Fig. 3's panels and the horizon study keep theirs among them, the transfer goes where its source
    scenario is not among them; Fig. 5's benchmark stays (it trains no agent of a scenario)."""
    keep = [int(s) for s in spec["scenarios"] if int(s) in {int(x) for x in scenarios}]
    if not keep:
        raise ConfigError(f"mdp: none of scenarios {sorted(scenarios)} is one of mdp.scenarios {spec['scenarios']}")
    out = {**spec, "scenarios": keep}
    panels = [s for s in fig3_scenarios(spec) if s in keep]
    out["fig3"] = {**spec["fig3"], "scenarios": panels} if panels else None
    t = transfer_spec(spec)
    out["transfer"] = t if t is not None and int(t["scenario"]) in keep else None
    study = horizon_study(spec)
    kept = [int(s) for s in study["scenarios"] if int(s) in keep] if study else []
    out["horizon_study"] = {**study, "scenarios": kept} if kept else None
    return out


#: what the study (``schedrl tune mdp``) never reads, pinned in its rule's spec (``config.study_spec_json``):
#: the runs' seeds (their overlap with the validation sets is checked on the whole section: ``tuning.tune_spec``
#: from workflow/rules/mdp.smk)
STUDY_PINS = {"seeds": [0]}


def run_spec(spec: dict, seed, scenario=None) -> str:
    """``--spec`` of a rule over one run (``run_spec_json``): the seeds narrowed to the run's, and
    with ``scenario`` (one of ``scenarios``) the scenarios too, so adding a seed or scenario leaves
    every other run's evaluation as it is. Without ``scenario`` (transfer: played in every
    scenario) the scenarios stay."""
    if scenario is not None and int(scenario) in {int(s) for s in spec["scenarios"]}:
        spec = only_scenarios(spec, [int(scenario)])
    return run_spec_json(spec, leave_out=("tune",), seeds=[int(seed)])


@dataclass(frozen=True)
class Run:
    horizon: int
    variant: str
    scenario: int
    seed: int


def runs(spec: dict) -> list[Run]:
    """Every training run: all variants x scenarios at the main horizon, then the horizon study."""
    main = [Run(int(spec["horizon"]), v, int(s), int(seed)) for v in spec["variants"] for s in spec["scenarios"]
            for seed in spec["seeds"]]
    study = horizon_study(spec)
    other = [Run(int(study["horizon"]), v, int(s), int(seed)) for v in study["variants"]
             for s in study["scenarios"] for seed in spec["seeds"]] if study else []
    return main + other


def horizons(spec: dict) -> list[int]:
    study = horizon_study(spec)
    return [int(spec["horizon"])] + ([int(study["horizon"])] if study else [])


# ---------------------------------------------------------------------------------------------
# Layout (shared by the Snakemake rules and the CLI).

def run_dir(root: str | Path, horizon, variant_name, scenario_id, seed) -> Path:
    return Path(root) / f"H{horizon}" / str(variant_name) / f"scenario{scenario_id}" / f"seed{seed}"


def eval_path(folder: str | Path) -> Path:
    """Per-trial evaluation table inside a run (or transfer) folder."""
    return Path(folder) / "eval_episodes.csv"


def transfer_dir(root: str | Path, horizon, variant_name, scenario_id, seed) -> Path:
    """Evaluations in every scenario of the agent trained in ``scenario_id`` (Fig. 6)."""
    return Path(root) / "transfer" / f"H{horizon}" / f"{variant_name}-from-scenario{scenario_id}" / f"seed{seed}"


def run_folder(root: str | Path, run: Run) -> Path:
    return run_dir(root, run.horizon, run.variant, run.scenario, run.seed)


def evaluation_files(spec: dict, root: str | Path = ROOT, horizon: int | None = None,
                     variants: Iterable[str] | None = None, scenarios: Iterable[int] | None = None) -> list[str]:
    """Evaluation tables of the selected runs (default: every run)."""
    out = []
    for run in runs(spec):
        if (horizon is None or run.horizon == horizon) and (variants is None or run.variant in variants) \
                and (scenarios is None or run.scenario in scenarios):
            out.append(str(eval_path(run_folder(root, run))))
    return out


def curve_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Learning curves Fig. 3 reads: image and compact at the main horizon, Fig. 3's scenarios."""
    return [str(run_dir(root, spec["horizon"], v, s, seed) / "learning_curve.csv")
            for v in ("image", "compact") for s in fig3_scenarios(spec) for seed in spec["seeds"]]


def timing_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(run_folder(root, r) / "timing.json") for r in runs(spec)]


def transfer_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    t = transfer_spec(spec)
    if t is None:
        return []
    return [str(eval_path(transfer_dir(root, spec["horizon"], name, t["scenario"], seed)))
            for name in transfer_variants(spec) for seed in spec["seeds"]]


def transfer_variants(spec: dict) -> list[str]:
    """The transfer variant and, when it runs too, its skipped-time-charged twin ([] without a transfer)."""
    if transfer_spec(spec) is None:
        return []
    name = spec["transfer"]["variant"]
    twin = sum_twin(name)
    return [name] + ([twin] if twin and twin in spec["variants"] else [])


# ---------------------------------------------------------------------------------------------
# Fingerprints (issue 41) and the no-learning references (``schedrl.papers.mdp.references``):
# ``fingerprint.json`` beside each evaluation table; the references' tables mirror the trained
# layout under ``reference_root(root, agent)``, so the claims code reads them with the same functions.

REFERENCE_AGENTS = ("random", "untrained")
AGENT_KINDS = ("trained",) + REFERENCE_AGENTS


def fingerprint_path(folder: str | Path) -> Path:
    return Path(folder) / "fingerprint.json"


def reference_root(root: str | Path, agent: str) -> Path:
    """Where the ``agent`` reference's evaluations go (``agent`` may be a Snakemake wildcard)."""
    return Path(root) / "reference" / agent


def reference_jobs(spec: dict, root: str | Path, agent: str) -> list[tuple[Run, bool, Path]]:
    """(run, transfer?, evaluation table) of every reference evaluation: each run's, then the
    transferred agents'."""
    ref = reference_root(root, agent)
    out = [(r, False, eval_path(run_folder(ref, r))) for r in runs(spec)]
    t, H = transfer_spec(spec), int(spec["horizon"])
    out += [(Run(H, name, int(t["scenario"]), int(seed)), True,
             eval_path(transfer_dir(ref, H, name, t["scenario"], seed)))
            for name in transfer_variants(spec) for seed in spec["seeds"]]
    return out


def reference_files(spec: dict, root: str | Path, agent: str) -> list[str]:
    """Every table and fingerprint a reference agent's evaluation writes."""
    return [str(p) for _, _, path in reference_jobs(spec, root, agent) for p in (path, fingerprint_path(path.parent))]


# SJF's (issue 60) and uniform play's (issue 68) tables: one per horizon for every scenario (and
# seed), the plays of ``references.evaluate_sjf`` and ``references.evaluate_uniform``.
SJF = "sjf"
UNIFORM = "uniform"


def sjf_path(root: str | Path, horizon: int | str) -> Path:
    """SJF's per-trial table of every scenario at ``horizon`` (column ``scenario``)."""
    return reference_root(root, SJF) / f"H{horizon}" / "eval_episodes.csv"


def uniform_path(root: str | Path, horizon: int | str) -> Path:
    """Uniform play's per-trial table of every scenario and seed at ``horizon`` (columns ``scenario``, ``seed``)."""
    return reference_root(root, UNIFORM) / f"H{horizon}" / "eval_episodes.csv"


def fingerprints_path(root: str | Path = ROOT) -> Path:
    return Path(root) / "fingerprints.csv"


# ---------------------------------------------------------------------------------------------
# Budget checkpoints (issue 24): the agents behind the RL claims at 1/8, 1/4 and 1/2 of training.

def budget_fractions() -> tuple[float, ...]:
    from schedrl.protocol import BUDGET_FRACTIONS

    return tuple(f for f in BUDGET_FRACTIONS if f < 1.0)


def budget_path(folder: str | Path) -> Path:
    """Per-trial evaluations of a run's budget checkpoints (column ``fraction``)."""
    return Path(folder) / "budget_episodes.csv"


def budget_fingerprint_path(folder: str | Path, fraction: float) -> Path:
    """Fingerprint of the checkpoint at ``fraction`` of training, beside ``budget_episodes.csv``."""
    return Path(folder) / f"fingerprint_at_{fraction:g}.json"


def budget_fingerprint_paths(folder: str | Path) -> list[Path]:
    return [budget_fingerprint_path(folder, f) for f in budget_fractions()]


def budget_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Budget evaluations behind the RL claims: every run at the main horizon of the base and the
    proposed MDPs (and its skipped-time-charged twin), the transfer variant's own agents, the
    horizon study's runs, and the transferred agents."""
    out = [str(budget_path(run_folder(root, r))) for r in runs(spec) if r in set(budget_runs(spec))]
    t = transfer_spec(spec)
    for name in transfer_variants(spec):
        out += [str(budget_path(transfer_dir(root, spec["horizon"], name, t["scenario"], seed))) for seed in spec["seeds"]]
    return out


def budget_runs(spec: dict) -> list[Run]:
    H, study, t = int(spec["horizon"]), horizon_study(spec), transfer_spec(spec)
    wanted = {BASE, PROPOSED} | ({t["variant"]} if t else set())
    wanted |= {sum_twin(n) for n in list(wanted) if sum_twin(n)}
    return [r for r in runs(spec)
            if (r.horizon == H and r.variant in wanted)
            or (study is not None and r.variant in study["variants"] and r.scenario in study["scenarios"])]


def bench_path(root: str | Path = ROOT) -> Path:
    """Fig. 5's horizon benchmark (``training.bench_horizon``)."""
    return Path(root) / "fig5_bench.csv"


# ---------------------------------------------------------------------------------------------
# What the rules that collect results ask for.

def fingerprint_files(spec: dict, root: str | Path = ROOT, kinds: Iterable[str] = AGENT_KINDS) -> list[str]:
    """``fingerprint.json`` of every evaluated agent: trained runs and transfers, their budget
    checkpoints, then references."""
    out = []
    for kind in kinds:
        if kind == "trained":
            out += [str(fingerprint_path(Path(p).parent)) for p in evaluation_files(spec, root) + transfer_files(spec, root)]
            out += [str(p) for b in budget_files(spec, root) for p in budget_fingerprint_paths(Path(b).parent)]
        else:
            out += [p for p in reference_files(spec, root, kind) if p.endswith("fingerprint.json")]
    return out


def claims_inputs(spec: dict, root: str | Path = ROOT) -> dict[str, list[str]]:
    """What the claims of ``spec`` read, by kind (the inputs of the rules ``mdp_claims`` and
    ``mdp_claims_scenario``): evaluations, transfers, Fig. 3's curves, timings, Fig. 5's benchmark,
    budget checkpoints, the trained agents' fingerprints, the no-learning references and SJF."""
    return {"evaluations": evaluation_files(spec, root), "transfer": transfer_files(spec, root),
            "curves": curve_files(spec, root), "timings": timing_files(spec, root),
            "bench": [str(bench_path(root))] if spec.get("fig5") else [],
            "budgets": budget_files(spec, root), "fingerprints": fingerprint_files(spec, root, kinds=["trained"]),
            "references": [p for agent in REFERENCE_AGENTS for p in reference_files(spec, root, agent)],
            "sjf": [str(sjf_path(root, spec["horizon"]))]}


# ---------------------------------------------------------------------------------------------
# From a run's env arguments back to its MDP and scenario.

def variant_of(kwargs: dict) -> str:
    """The variant whose options an env's kwargs carry."""
    got = (kwargs.get("obs_mode"), kwargs.get("transitions"), kwargs.get("reward"), kwargs.get("skipped_reward", "sum"))
    for name, v in VARIANTS.items():
        if got == (v.obs_mode, v.transitions, v.reward, v.skipped_reward):
            return name
    raise ConfigError(f"env arguments {kwargs.get('obs_mode')}/{kwargs.get('transitions')}/{kwargs.get('reward')} "
                      "are not one of the paper's MDP variants")


def scenario_of(kwargs: dict) -> int:
    key = (kwargs.get("res_slot"), kwargs.get("max_job_len"), kwargs.get("workload_max_job_size"))
    for sid, s in SCENARIOS.items():
        if key == (s.procs, s.max_len, s.max_size):
            return sid
    raise ConfigError(f"env arguments n_p={key[0]}, d={key[1]}, j_s={key[2]} are not a Table 3 scenario")
