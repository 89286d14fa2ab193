"""DeepRM experiments of the SB3 report (deeprm-sb3-report.txt, chapters 4-5): the layout.

What every other module of the package and the Snakemake rules (``workflow/rules/deeprm.smk``) name
things by, written once: the paper's constants (``ROOT``, ``ENV_ID``, variants, objectives,
protocols, agent and reference names), the ``deeprm`` config section (a "spec": ``load_spec``,
``check_spec``, ``parse_variant``), the run and evaluation folders and files (``run_dir``,
``baseline_dir``, ``deeprm_agent_dir``, ``eval_paths``, ...) and the file lists the rules ask for
(``evaluation_files``, ``timing_files``, ``budget_files``, ``replay_files``, ``reference_files``,
``fingerprint_files``, ``authors_files``). It imports no other module of the package: training
(``training``), playing (``evaluation``), the references (``references``) and the cost model
(``cost``) build on it.

A *variant* is one of the report's four environments: action mode (``discrete`` / ``multibinary``)
times phase (phase 1 ``stacked`` state, phase 2 ``image`` state), e.g. ``discrete-image``. Agents
are trained at one arrival rate (the report's "130%" = new_job_rate 0.7) on ``num_jobsets``
training job sets, then every agent and every heuristic (SJF, Packer, Random) is evaluated on
held-out job sets (other seeds) across a grid of arrival rates.

The Snakemake rules build their path patterns from ``run_dir``, ``baseline_dir`` and
``deeprm_agent_dir`` called with wildcards, so the layout is written once.

Two evaluation protocols (``PROTOCOLS``), each written to its own files (``eval_paths``):

* ``heldout`` (ours): ``eval.episodes`` unseen job sets per rate (seeds ``eval.jobset_seed``, ...),
  actions as ``eval.deterministic``, episodes run until every job finished (cap
  ``eval.episode_max_length``, 2,000), every arrived job counted: ``mean_slowdown`` is the mean over
  all of them (jobs never placed count with their slowdown so far).
* ``report`` (the SB3 report's code): the job sequence of ``eval.report.jobset_seed`` (42) drawn as
  its code draws it (``jobset_rng="legacy"``), the one sequence it also trains on (in-sample when
  ``train`` uses the same sequence), ``eval.report.episodes`` (1) episode per rate, sampled actions,
  its episode cap (2,000), and ``mean_slowdown`` over the jobs that were placed only.
* ``heldout_greedy`` (agents only, ``AGENT_PROTOCOLS``): ``heldout`` with greedy actions, at the
  box-plot rate only (``eval.box_rate``, "130%"): whether an agent beats SJF held out should not
  hang on sampling, and greedy play is where starvation shows (a greedy policy that withholds a
  long job withholds it for good).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from schedrl.config import run_spec_json
from schedrl.errors import ConfigError

ROOT = "results/deeprm"  # every run, evaluation and the claims table of this paper
ENV_ID = "schedrl.envs:schedrl/DeepRM-v0"
WRAPPERS = ("schedrl.agents.wrappers:JobMetricsInfo",)
OBJECTIVES = ("slowdown", "completion_time")
BASELINES = ("sjf", "packer", "first_slot", "random")
PROTOCOLS = ("heldout", "report")
GREEDY = "heldout_greedy"
AGENT_PROTOCOLS = PROTOCOLS + (GREEDY,)  # agents are also played greedily on the held-out sets
PROTOCOL_LABEL = {"heldout": "held-out job sets, every job counted",
                  "report": "report protocol: seed-42 sequence, placed jobs only",
                  GREEDY: "held-out job sets, every job counted, greedy actions"}
ACTION_MODES = ("discrete", "multibinary")
OBS_MODES = ("stacked", "image")
# env obs_mode choices per phase: phase 1's state as the report's text (stacked image) or its code
# (``profile``: free units and slot profiles as numbers, (num_nw + 1, H, num_res)).
PHASE_OBS_MODES = {"stacked": ("stacked", "profile"), "image": ("image",)}
# Env arguments owned by the experiment (set per run), never by the config's env blocks.
RUN_KEYS = ("obs_mode", "action_mode", "reward", "new_job_rate", "jobset_seed", "num_jobsets", "jobset_rng")
LOAD_KEYS = ("res_slot", "workload", "num_res", "max_job_len", "max_job_size")
#: Hyperparameters a variant's ``hyperparams.<algo>`` block may set over hyperparams/<algo>.yaml's
#: ``deeprm-<variant>`` block (beyond the report: a tuned recipe, issue 69), under rl-zoo3's names (its
#: samplers' per algorithm); ``net``: the hidden layers of actor and critic (the report's: 64-64, tanh);
#: ``sparse_input``: the actor-critics' first layer (``auto``, true or false; issue 72's A/B of one run
#: trained both ways). ``training.hyperparams_override`` applies them; DQN has none (no study tunes it).
PPO_HYPERPARAMS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef",
                   "clip_range", "vf_coef", "max_grad_norm", "net", "sparse_input")
HYPERPARAM_KEYS = {
    "ppo": PPO_HYPERPARAMS,
    "maskable_ppo": PPO_HYPERPARAMS,
    "a2c": ("learning_rate", "n_steps", "gamma", "gae_lambda", "ent_coef", "vf_coef", "max_grad_norm",
            "use_rms_prop", "normalize_advantage", "net", "sparse_input"),
    "trpo": ("learning_rate", "n_steps", "batch_size", "gamma", "gae_lambda", "target_kl", "cg_max_steps",
             "cg_damping", "n_critic_updates", "net"),
}


def parse_variant(variant: str) -> tuple[str, str]:
    """``"discrete-image"`` -> ``("discrete", "image")``; anything else raises ConfigError.

    A third, free part names another version of the same environment and phase
    (``"discrete-stacked-text"``: phase 1 as the report's text describes it, beside
    ``"discrete-stacked"`` as the report's code runs it); it shares the phase's figures' axes and
    the hyperparameter block of ``<action>-<phase>``.
    """
    parts = variant.split("-", 2)
    action, obs = (parts + ["", ""])[:2]
    tag_ok = len(parts) < 3 or re.fullmatch(r"[a-z0-9_]+", parts[2]) is not None
    if action not in ACTION_MODES or obs not in OBS_MODES or not tag_ok:
        raise ConfigError(f"unknown DeepRM variant '{variant}' (expected <{'|'.join(ACTION_MODES)}>-"
                          f"<{'|'.join(OBS_MODES)}>[-<name>])")
    return action, obs


def variant_obs_mode(spec: dict, variant: str) -> str:
    """The env's ``obs_mode`` of ``variant``: the phase's state (stacked or image), or the variant
    block's ``obs_mode`` (phase 1 only: ``profile``, the report code's numeric state)."""
    _, obs = parse_variant(variant)
    chosen = variant_spec(spec, variant).get("obs_mode", obs)
    if chosen not in PHASE_OBS_MODES[obs]:
        raise ConfigError(f"deeprm.variants.{variant}.obs_mode: '{chosen}' is not a {obs} state "
                          f"(choose from: {', '.join(PHASE_OBS_MODES[obs])})")
    return chosen


def variant_spec(spec: dict, variant: str) -> dict:
    try:
        return spec["variants"][variant]
    except KeyError:
        raise ConfigError(f"deeprm.variants: no variant '{variant}'") from None


def load_spec(text: str) -> dict:
    """The ``deeprm`` config section from JSON text or a config YAML file, schema- and cross-checked."""
    from schedrl.config import load_section

    return check_spec(load_section(text, "deeprm"))


def check_spec(spec: dict) -> dict:
    """Cross-key checks the JSON schema cannot express; raises ConfigError naming the key."""
    from schedrl.agents.registry import ALGOS

    for variant, block in spec["variants"].items():
        action, _ = parse_variant(variant)
        variant_obs_mode(spec, variant)
        space = {"discrete": "Discrete", "multibinary": "MultiBinary"}[action]
        for algo in block["algos"]:
            if space not in ALGOS[algo][2]:
                raise ConfigError(f"deeprm.variants.{variant}.algos: {algo} cannot act in {space} action spaces")
        for algo, values in (block.get("hyperparams") or {}).items():
            if algo not in HYPERPARAM_KEYS:
                raise ConfigError(f"deeprm.variants.{variant}.hyperparams.{algo}: no overrides for {algo} "
                                  f"(choose from: {', '.join(HYPERPARAM_KEYS)})")
            for key in values or {}:
                if key not in HYPERPARAM_KEYS[algo]:
                    raise ConfigError(f"deeprm.variants.{variant}.hyperparams.{algo}.{key}: not a {algo} "
                                      f"hyperparameter here (choose from: {', '.join(HYPERPARAM_KEYS[algo])})")
    algos = {a for block in spec["variants"].values() for a in block["algos"]}
    for key, seeds in (spec.get("seeds_by") or {}).items():
        if key not in ALGOS and key not in OBJECTIVES:  # a merged config may name an unused one
            raise ConfigError(f"deeprm.seeds_by.{key}: not an algorithm ({', '.join(sorted(ALGOS))}) "
                              f"nor an objective ({', '.join(OBJECTIVES)})")
        if not set(seeds) & set(spec["seeds"]):
            raise ConfigError(f"deeprm.seeds_by.{key}: {seeds} shares no seed with deeprm.seeds {spec['seeds']}")
    for algo in sorted(algos):
        for objective in spec["objectives"]:
            if not run_seeds(spec, algo, objective):
                raise ConfigError(f"deeprm.seeds_by leaves {algo} trained for {objective} with no seed")
    for key in spec.get("steps_by") or {}:
        if key not in ALGOS and key not in OBJECTIVES and key not in spec["variants"]:
            raise ConfigError(f"deeprm.steps_by.{key}: not a variant ({', '.join(spec['variants'])}), an algorithm "
                              f"({', '.join(sorted(ALGOS))}) nor an objective ({', '.join(OBJECTIVES)})")
    ev = spec["eval"]
    agent = spec.get("deeprm_agent")
    if agent is not None:
        if agent["variant"] not in spec["variants"]:
            raise ConfigError(f"deeprm.deeprm_agent.variant '{agent['variant']}' must be one of deeprm.variants")
        for rate in agent["rates"]:
            if not any(np.isclose(rate, r) for r in ev["rates"]):
                raise ConfigError(f"deeprm.deeprm_agent.rates: {rate} must be one of deeprm.eval.rates")
        for rate in (agent.get("converge") or {}).get("rates", []):
            if not any(np.isclose(rate, r) for r in agent["rates"]):
                raise ConfigError(f"deeprm.deeprm_agent.converge.rates: {rate} must be one of deeprm.deeprm_agent.rates")
    for key, rate in (("eval.box_rate", ev["box_rate"]), ("eval.withheld_rate", ev["withheld_rate"]),
                      ("train.rate", spec["train"]["rate"])):
        if not any(np.isclose(rate, r) for r in ev["rates"]):
            raise ConfigError(f"deeprm.{key} = {rate} must be one of deeprm.eval.rates")
    return spec


def label(algo: str, objective: str | None = None) -> str:
    names = {"dqn": "DQN", "a2c": "A2C", "ppo": "PPO", "trpo": "TRPO", "maskable_ppo": "MaskablePPO",
             DEEPRM_AGENT: "DeepRM agent",
             "sjf": "SJF", "packer": "Packer", "first_slot": "first slot", "random": "Random"}
    text = names.get(algo, algo)
    return f"{text} ({objective.replace('_', ' ')})" if objective else text


def agent_runs(spec: dict, variant: str, objectives: Iterable[str] | None = None,
               algos: Iterable[str] | None = None) -> list[tuple[str, str, int]]:
    """(algo, objective, seed) of the variant's configured agents."""
    block = variant_spec(spec, variant)
    algos = list(algos if algos is not None else block["algos"])
    objectives = list(objectives if objectives is not None else spec["objectives"])
    return [(a, o, s) for a in algos for o in objectives for s in run_seeds(spec, a, o)]


#: what the study (``schedrl tune deeprm``) never reads, pinned (None: dropped) in its rule's spec: the runs'
#: seed lists and the authors' model folders (``config.study_spec_json``)
STUDY_PINS = {"reference_dirs": None, "seeds": [0], "seeds_by": None, "deeprm_agent.seeds": [0]}


def run_spec(spec: dict, seed=None, *, authors: bool = False) -> str:
    """``--spec`` of a rule over one run of ``seed`` (``run_spec_json``): ``seeds``, ``seeds_by``
    and the DeepRM agent's seeds narrowed to it, the study and (unless ``authors``: the rule that
    plays the authors' agents) their folders left out, so adding a seed neither retrains nor
    re-evaluates the runs there are. A rule over no run (``seed`` None: a baseline, the authors'
    agents) gets the first seed."""
    seed = int(spec["seeds"][0] if seed is None else seed)
    by = {k: [seed] for k, v in (spec.get("seeds_by") or {}).items() if seed in v}
    agent = spec.get("deeprm_agent")
    if agent and agent.get("seeds"):
        agent = {**agent, "seeds": [seed]}
    return run_spec_json(spec, leave_out=("tune",) if authors else ("reference_dirs", "tune"), seeds=[seed],
                         seeds_by=by or None, deeprm_agent=agent)


def run_seeds(spec: dict, algo: str, objective: str) -> list[int]:
    """Training seeds of one (algo, objective): ``seeds``, cut to every ``seeds_by`` entry that
    names the algorithm or the objective (so ``{completion_time: [0], dqn: [0]}`` trains those
    runs on seed 0 only and everything else on every seed)."""
    seeds = list(spec["seeds"])
    for key in (algo, objective):
        if key in (spec.get("seeds_by") or {}):
            seeds = [s for s in seeds if s in spec["seeds_by"][key]]
    return seeds


def run_dir(root: str | Path, variant: str, algo: str, objective: str, seed: int) -> Path:
    return Path(root) / variant / algo / objective / f"seed{seed}"


def baseline_dir(root: str | Path, variant: str, policy: str) -> Path:
    return Path(root) / variant / "baseline" / policy


def eval_paths(folder: str | Path, protocol: str = "heldout") -> dict[str, Path]:
    """The evaluation outputs of ``protocol`` inside a run or baseline folder."""
    folder = Path(folder)
    return {"jobs": folder / f"eval_{protocol}_jobs.csv", "episodes": folder / f"eval_{protocol}_episodes.csv"}


def eval_outputs(folder: str | Path, protocols, fingerprint: bool = False) -> list[str]:
    """Every file one evaluation rule writes into ``folder`` for ``protocols`` (per-job and
    per-episode tables, and with ``fingerprint`` the agent's behaviour fingerprint)."""
    out = []
    for protocol in protocols:
        out += [str(p) for p in eval_paths(folder, protocol).values()]
        if fingerprint:
            out.append(str(fingerprint_path(folder, protocol)))
    return out


def check_protocol(protocol: str) -> str:
    if protocol not in AGENT_PROTOCOLS:
        raise ConfigError(f"unknown evaluation protocol '{protocol}' (choose from: {', '.join(AGENT_PROTOCOLS)})")
    return protocol


def protocol_setup(spec: dict, protocol: str) -> dict[str, Any]:
    """How ``protocol`` evaluates: episodes per rate, first job-set seed, env overrides, greedy or
    not, and the rates it covers."""
    ev = spec["eval"]
    if check_protocol(protocol) in ("heldout", GREEDY):
        greedy = protocol == GREEDY
        return {"episodes": int(ev["episodes"]), "jobset_seed": int(ev["jobset_seed"]),
                "overrides": {"episode_max_length": int(ev.get("episode_max_length", 2000)), "jobset_rng": "pcg64"},
                "deterministic": True if greedy else bool(ev["deterministic"]),
                "rates": [float(ev["box_rate"])] if greedy else [float(r) for r in ev["rates"]]}
    rep = {"jobset_seed": 42, "episodes": 1, "episode_max_length": 2000, **ev.get("report", {})}
    return {"episodes": int(rep["episodes"]), "jobset_seed": int(rep["jobset_seed"]),
            "overrides": {"episode_max_length": int(rep["episode_max_length"]), "jobset_rng": "legacy"},
            "deterministic": False, "rates": [float(r) for r in ev["rates"]]}



# ---------------------------------------------------------------------------------------------
# DeepRM's own agent (Mao et al. 2016): REINFORCE trained for slowdown at every rate of the sweep.

DEEPRM_AGENT = "deeprm_pg"
#: its player in the normalised score and the recipe probes
DEEPRM_AGENT_PLAYER = "DeepRM agent (ours)"
DEEPRM_AGENT_LABEL = "DeepRM (Mao et al.) agent, trained per load"


def deeprm_agent_runs(spec: dict) -> list[tuple[float, int]]:
    """(rate, seed) of every configured DeepRM-agent run; empty without a ``deeprm_agent`` block."""
    agent = spec.get("deeprm_agent")
    if not agent:
        return []
    seeds = agent.get("seeds") or spec["seeds"][:1]
    return [(float(r), int(s)) for r in agent["rates"] for s in seeds]


def deeprm_agent_dir(root: str | Path, variant: str, rate: float | str, seed: int | str) -> Path:
    """Run folder of the DeepRM agent at ``rate`` (a string is kept as is: a Snakemake wildcard)."""
    rate = rate if isinstance(rate, str) else f"{float(rate):g}"
    return Path(root) / variant / DEEPRM_AGENT / "slowdown" / f"rate{rate}" / f"seed{seed}"


def deeprm_agent_paths(spec: dict, root: str | Path, what: str = "episodes",
                       protocol: str = "heldout") -> list[Path]:
    """Evaluation files (``episodes`` / ``jobs``) of ``protocol`` or ``timing`` of every DeepRM-agent
    run (``heldout_greedy``: the runs at the protocol's rates only)."""
    agent = spec.get("deeprm_agent")
    out = []
    for rate, seed in deeprm_agent_runs(spec):
        if what != "timing" and not any(np.isclose(rate, r) for r in protocol_setup(spec, protocol)["rates"]):
            continue
        folder = deeprm_agent_dir(root, agent["variant"], rate, seed)
        out.append(folder / "timing.json" if what == "timing" else eval_paths(folder, protocol)[what])
    return out



# ---------------------------------------------------------------------------------------------
# The report protocol replayed (issue 57 item 3; played in ``evaluation``). That protocol plays ONE
# sampled episode per seed of the run's best-in-sample model on the seed-42 sequence, so a win over SJF
# can be a lucky draw. A replay plays the same model on the same sequence at the box rate once per
# sampling seed.

#: Sampling seeds of a replay: the samplers are seeded 0, 1, ..., 19. A constant, not a config key:
#: every rule's params embed the whole ``deeprm`` section, so a new key would rerun every rule of a
#: run already built. Twenty draws put a median and a 10-90% range on the protocol's one draw
#: (history.md, "Not a lucky episode", checked by hand with 20 before it was in the DAG).
REPLAY_SAMPLING_SEEDS = 20
REPLAY_FILE = "replay_report.csv"  # inside the run folder
#: The replays behind the headline claims ("A2C and TRPO beat SJF at 130%"): discrete phase 2's
#: slowdown-trained SB3 agents.
REPLAY_VARIANT = "discrete-image"
REPLAY_OBJECTIVE = "slowdown"


def replay_path(folder: str | Path) -> Path:
    return Path(folder) / REPLAY_FILE


def replay_runs(spec: dict) -> list[tuple[str, int]]:
    """(algo, seed) of the agents replayed: ``REPLAY_VARIANT``'s SB3 agents trained for
    ``REPLAY_OBJECTIVE`` (none when the scale does not train them)."""
    if REPLAY_VARIANT not in spec["variants"] or REPLAY_OBJECTIVE not in spec["objectives"]:
        return []
    return [(a, s) for a, _, s in agent_runs(spec, REPLAY_VARIANT, [REPLAY_OBJECTIVE])]


def replay_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(replay_path(run_dir(root, REPLAY_VARIANT, a, REPLAY_OBJECTIVE, s))) for a, s in replay_runs(spec)]


def replay_table_inputs(spec: dict, root: str | Path = ROOT) -> list[str]:
    """What the replay table reads: the replays, each agent's report-protocol episodes (its one draw)
    and SJF's (deterministic: one value per rate)."""
    runs = replay_runs(spec)
    files = replay_files(spec, root)
    files += [str(eval_paths(run_dir(root, REPLAY_VARIANT, a, REPLAY_OBJECTIVE, s), "report")["episodes"])
              for a, s in runs]
    if runs and "sjf" in spec["baselines"]:
        files.append(str(eval_paths(baseline_dir(root, REPLAY_VARIANT, "sjf"), "report")["episodes"]))
    return files



# ---------------------------------------------------------------------------------------------
# No-learning references (issue 41; played in ``references``): the uniform-random valid policy and the
# untrained network, and the behaviour fingerprint every evaluated agent's evaluation writes.

REFERENCES = ("random", "untrained")
KINDS = ("trained",) + REFERENCES
REFERENCE_LABEL = {"random": "uniform-random valid policy", "untrained": "untrained network"}


def fingerprint_path(folder: str | Path, protocol: str) -> Path:
    """The fingerprint of the agent played in ``folder`` under ``protocol`` (beside its CSVs)."""
    return Path(folder) / f"eval_{protocol}_fingerprint.json"


def reference_dir(root: str | Path, variant: str, reference: str, algo: str, seed: int | str) -> Path:
    """Folder of a no-learning reference's evaluations. The random policy depends on its seed only
    (one per variant and seed, whatever the algorithm); the untrained network on its architecture
    and seed (one per variant, algorithm and seed: the objective changes the reward, not the weights
    a seed draws)."""
    if reference == "random":
        return Path(root) / variant / "reference" / "random" / f"seed{seed}"
    if reference == "untrained":
        return Path(root) / variant / "reference" / "untrained" / algo / f"seed{seed}"
    raise ConfigError(f"unknown reference '{reference}' (choose from: {', '.join(REFERENCES)})")


def reference_runs(spec: dict) -> list[tuple[str, str, str, int]]:
    """(variant, reference, algo, seed) of every reference evaluation the claims need, once each
    (random: algo ""), the DeepRM agent's untrained network included."""
    out: list[tuple[str, str, str, int]] = []
    for variant in spec["variants"]:
        for algo, _, seed in agent_runs(spec, variant):
            out += [(variant, "random", "", seed), (variant, "untrained", algo, seed)]
    agent = spec.get("deeprm_agent")
    for _, seed in deeprm_agent_runs(spec):
        out += [(agent["variant"], "random", "", seed), (agent["variant"], "untrained", DEEPRM_AGENT, seed)]
    return list(dict.fromkeys(out))


def reference_outputs(folder: str | Path) -> list[Path]:
    """Every file a reference evaluation writes: jobs, episodes and fingerprint per agent protocol."""
    out = []
    for protocol in AGENT_PROTOCOLS:
        paths = eval_paths(folder, protocol)
        out += [paths["jobs"], paths["episodes"], fingerprint_path(folder, protocol)]
    return out


def agent_eval_dir(root: str | Path, variant: str, algo: str, objective: str, seed: int,
                   reference: str | None = None) -> Path:
    """Where the agent (algo, objective, seed)'s evaluations are, or those of its ``reference``."""
    if reference:
        return reference_dir(root, variant, reference, algo, seed)
    return run_dir(root, variant, algo, objective, seed)



# ---------------------------------------------------------------------------------------------
# The report authors' published agents (issue 40; played in ``references``): SB2 models of phase 2
# and DeepRM's REINFORCE weights per load, read from the first existing folder of
# ``deeprm.reference_dirs``. Their rows are labelled "authors' ..." and their algo is
# ``authors_<algo>`` so no claim mistakes them for ours.

AUTHORS_PREFIX = "authors_"
# (variant, algo, objective) -> file inside the reference folder (PROVENANCE.md there)
AUTHORS_MODELS = {
    ("discrete-image", "a2c", "slowdown"): "sb2-discrete/job_scheduling_A2C_Slowdown.zip",
    ("discrete-image", "ppo", "slowdown"): "sb2-discrete/job_scheduling_PPO2_Slowdown.zip",
    ("discrete-image", "a2c", "completion_time"): "sb2-discrete/job_scheduling_A2C_Ctime.zip",
    ("discrete-image", "ppo", "completion_time"): "sb2-discrete/job_scheduling_PPO2_Ctime.zip",
    ("multibinary-image", "a2c", "slowdown"): "sb2-multibinary/job_scheduling_A2C_Slowdown.zip",
    ("multibinary-image", "ppo", "slowdown"): "sb2-multibinary/job_scheduling_PPO2_Slowdown.zip",
}
# DeepRM's own agent after 950 iterations, one file per training rate 0.1 ... 1.0
AUTHORS_PG = "deeprm-pg/pg_re_rate_{rate:.1f}_simu_len_50_num_seq_per_batch_20_ex_10_nw_10_950.pkl"
AUTHORS_PG_VARIANT = "discrete-image"


def authors_folder(spec: dict) -> Path | None:
    """The first existing folder of ``deeprm.reference_dirs`` (None: none configured or none there)."""
    for folder in spec.get("reference_dirs") or []:
        if Path(folder).is_dir():
            return Path(folder)
    return None


def authors_name(algo: str, objective: str) -> str:
    return f"{algo}-{objective}"


def authors_runs(spec: dict) -> list[tuple[str, str, list[Path]]]:
    """``(variant, name, files)`` of the authors' agents this config can play: the variant is
    configured and the files exist (DeepRM's agent: the files of the eval rates that exist)."""
    folder = authors_folder(spec)
    if folder is None:
        return []
    out = []
    for (variant, algo, objective), rel in AUTHORS_MODELS.items():
        if variant in spec["variants"] and objective in spec["objectives"] and (folder / rel).is_file():
            out.append((variant, authors_name(algo, objective), [folder / rel]))
    if AUTHORS_PG_VARIANT in spec["variants"]:
        pgs = [folder / AUTHORS_PG.format(rate=r) for r in spec["eval"]["rates"]]
        pgs = [p for p in pgs if p.is_file()]
        if pgs:
            out.append((AUTHORS_PG_VARIANT, authors_name(DEEPRM_AGENT, "slowdown"), pgs))
    return out


def authors_dir(root: str | Path, variant: str, name: str) -> Path:
    return Path(root) / variant / "authors" / name



# ---------------------------------------------------------------------------------------------
# What the Snakemake rules read (workflow/rules/deeprm.smk calls these in its input lambdas).

def evaluation_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Every evaluation file the claims and the 130% table read (agents, baselines, DeepRM's agent)."""
    files = []
    for protocol in AGENT_PROTOCOLS:
        for variant in spec["variants"]:
            for algo, objective, seed in agent_runs(spec, variant):
                paths = eval_paths(run_dir(root, variant, algo, objective, seed), protocol)
                files += [str(paths["episodes"]), str(paths["jobs"])]
            if protocol in PROTOCOLS:
                files += [str(eval_paths(baseline_dir(root, variant, b), protocol)["episodes"])
                          for b in spec["baselines"]]
        files += [str(p) for p in deeprm_agent_paths(spec, root, protocol=protocol)]
    return files


def timing_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """``timing.json`` of every training run (SB3 agents and DeepRM's agent)."""
    return [str(run_dir(root, v, a, o, s) / "timing.json") for v in spec["variants"]
            for a, o, s in agent_runs(spec, v)] + [str(p) for p in deeprm_agent_paths(spec, root, "timing")]


def budget_path(folder: str | Path, protocol: str) -> Path:
    """Per-episode evaluations of a run's budget checkpoints under ``protocol``."""
    return Path(folder) / f"eval_{protocol}_budget.csv"


def budget_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Budget evaluations behind the RL claims: every SB3 run and DeepRM's agent at the box rate,
    under both protocols."""
    box = float(spec["eval"]["box_rate"])
    agent = spec.get("deeprm_agent")
    files = []
    for protocol in PROTOCOLS:
        for variant in spec["variants"]:
            files += [str(budget_path(run_dir(root, variant, a, o, s), protocol)) for a, o, s in agent_runs(spec, variant)]
        files += [str(budget_path(deeprm_agent_dir(root, agent["variant"], r, s), protocol))
                  for r, s in deeprm_agent_runs(spec) if np.isclose(r, box)]
    return files


def reference_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(p) for v, ref, algo, seed in reference_runs(spec)
            for p in reference_outputs(reference_dir(root, v, ref, algo, seed))]


def fingerprint_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Every evaluated agent's fingerprint: SB3 runs and DeepRM's agent (each protocol it is played
    under) and the references; ``fingerprints.csv`` has one row per file."""
    files = []
    for protocol in AGENT_PROTOCOLS:
        for variant in spec["variants"]:
            files += [str(fingerprint_path(run_dir(root, variant, a, o, s), protocol)) for a, o, s in agent_runs(spec, variant)]
        files += [str(fingerprint_path(p.parent, protocol)) for p in deeprm_agent_paths(spec, root, protocol=protocol)]
    return files + [f for f in reference_files(spec, root) if f.endswith("_fingerprint.json")]


def authors_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Episode tables of the authors' agents under both protocols ([] when the folder is absent)."""
    return [str(eval_paths(authors_dir(root, variant, name), p)["episodes"])
            for variant, name, _ in authors_runs(spec) for p in PROTOCOLS]
