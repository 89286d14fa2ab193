"""DeepRM experiments of the SB3 report (deeprm-sb3-report.txt, chapters 4-5).

A *variant* is one of the report's four environments: action mode (``discrete`` / ``multibinary``)
times phase (phase 1 ``stacked`` state, phase 2 ``image`` state), e.g. ``discrete-image``. Agents
are trained at one arrival rate (the report's "130%" = new_job_rate 0.7) on ``num_jobsets``
training job sets, then every agent and every heuristic (SJF, Packer, Random) is evaluated on
held-out job sets (other seeds) across a grid of arrival rates. This module holds

* the run-folder layout shared by the Snakemake rules and the CLI (``run_dir``, ``eval_paths``),
* ``env_kwargs``: the env's keyword arguments for a variant, objective and rate from the
  pipeline's ``deeprm`` config section (a "spec"),
* ``evaluate_over_rates``: per-job and per-episode tables of one policy across rates,
* readers and summaries the figures and claims use (load curves, 130% boxes, learning curves by
  iteration, job-length fractions of generated and withheld jobs).

Mean slowdown of an episode is the mean over all its jobs that arrived (jobs unfinished at a
truncation count with their slowdown so far, as the env reports them; dropped jobs are absent).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError, InputFileError

ENV_ID = "schedrl.envs:schedrl/DeepRM-v0"
WRAPPERS = ("schedrl.agents.wrappers:JobMetricsInfo",)
OBJECTIVES = ("slowdown", "completion_time")
BASELINES = ("sjf", "packer", "random")
ACTION_MODES = ("discrete", "multibinary")
OBS_MODES = ("stacked", "image")
# Env arguments owned by the experiment (set per run), never by the config's env blocks.
RUN_KEYS = ("obs_mode", "action_mode", "reward", "new_job_rate", "jobset_seed", "num_jobsets")
LOAD_KEYS = ("res_slot", "workload", "num_res", "max_job_len", "max_job_size")


def parse_variant(variant: str) -> tuple[str, str]:
    """``"discrete-image"`` -> ``("discrete", "image")``; anything else raises ConfigError."""
    action, _, obs = variant.partition("-")
    if action not in ACTION_MODES or obs not in OBS_MODES:
        raise ConfigError(f"unknown DeepRM variant '{variant}' (expected <{'|'.join(ACTION_MODES)}>-"
                          f"<{'|'.join(OBS_MODES)}>)")
    return action, obs


def check_spec(spec: dict) -> dict:
    """Cross-key checks the JSON schema cannot express; raises ConfigError naming the key."""
    from schedrl.agents.registry import ALGOS

    for variant, block in spec["variants"].items():
        action, _ = parse_variant(variant)
        space = {"discrete": "Discrete", "multibinary": "MultiBinary"}[action]
        for algo in block["algos"]:
            if space not in ALGOS[algo][2]:
                raise ConfigError(f"deeprm.variants.{variant}.algos: {algo} cannot act in {space} action spaces")
    ev = spec["eval"]
    agent = spec.get("deeprm_agent")
    if agent is not None:
        if agent["variant"] not in spec["variants"]:
            raise ConfigError(f"deeprm.deeprm_agent.variant '{agent['variant']}' must be one of deeprm.variants")
        for rate in agent["rates"]:
            if not any(np.isclose(rate, r) for r in ev["rates"]):
                raise ConfigError(f"deeprm.deeprm_agent.rates: {rate} must be one of deeprm.eval.rates")
    for key, rate in (("eval.box_rate", ev["box_rate"]), ("eval.withheld_rate", ev["withheld_rate"]),
                      ("train.rate", spec["train"]["rate"])):
        if not any(np.isclose(rate, r) for r in ev["rates"]):
            raise ConfigError(f"deeprm.{key} = {rate} must be one of deeprm.eval.rates")
    return spec


def hyperparams_variant(variant: str) -> str:
    """Key of a variant in the hyperparameter YAML files (``deeprm-discrete-image``)."""
    return f"deeprm-{variant}"


def run_dir(root: str | Path, variant: str, algo: str, objective: str, seed: int) -> Path:
    return Path(root) / variant / algo / objective / f"seed{seed}"


def baseline_dir(root: str | Path, variant: str, policy: str) -> Path:
    return Path(root) / variant / "baseline" / policy


def eval_paths(folder: str | Path) -> dict[str, Path]:
    """The evaluation outputs inside a run or baseline folder."""
    folder = Path(folder)
    return {"jobs": folder / "eval_jobs.csv", "episodes": folder / "eval_episodes.csv"}


def variant_spec(spec: dict, variant: str) -> dict:
    try:
        return spec["variants"][variant]
    except KeyError:
        raise ConfigError(f"deeprm.variants: no variant '{variant}'") from None


def env_kwargs(spec: dict, variant: str, objective: str, *, rate: float | None = None,
               jobset_seed: int | None = None, num_jobsets: int | None = None) -> dict[str, Any]:
    """Env keyword arguments of ``variant`` for ``objective`` (training rate and job sets by default)."""
    action, obs = parse_variant(variant)
    if objective not in OBJECTIVES:
        raise ConfigError(f"unknown DeepRM objective '{objective}' (choose from: {', '.join(OBJECTIVES)})")
    block = variant_spec(spec, variant)
    kwargs = {**spec.get("env", {}), **block.get("env", {})}
    for key in RUN_KEYS:
        if key in kwargs:
            raise ConfigError(f"deeprm env key '{key}' is set by the experiment; remove it from the config")
    train = spec["train"]
    kwargs.update(obs_mode=obs, action_mode=action, reward=objective,
                  new_job_rate=float(train["rate"] if rate is None else rate),
                  jobset_seed=int(train["jobset_seed"] if jobset_seed is None else jobset_seed),
                  num_jobsets=int(train["num_jobsets"] if num_jobsets is None else num_jobsets))
    return kwargs


def rate_load(rate: float, kwargs: dict) -> float:
    """Expected cluster load (fraction) of ``rate`` for an env with ``kwargs`` (report eq. 4.1, per resource)."""
    from schedrl.workloads.deeprm import load_for_rate

    return float(load_for_rate(rate, **{k: kwargs[k] for k in LOAD_KEYS if k in kwargs}))


def evaluate_over_rates(make_policy: Callable, kwargs: dict, rates: Iterable[float], episodes: int,
                        jobset_seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play ``make_policy(env)`` on ``episodes`` held-out job sets at each rate.

    Job set k of every rate is generated from seed ``jobset_seed + k``, so all policies see the same
    jobs. Returns (per-job table, per-episode table), both with columns ``rate`` and ``load``.
    """
    from tqdm.auto import tqdm

    from schedrl.envs.rollout import episode_summary, run_policy
    from schedrl.experiments.envs import make_env

    if episodes < 1:
        raise ConfigError(f"evaluation episodes must be >= 1, got {episodes}")
    jobs, summary = [], []
    for rate in tqdm(list(rates), desc="rates", unit="rate", disable=None):
        env_args = {**kwargs, "new_job_rate": float(rate), "jobset_seed": int(jobset_seed),
                    "num_jobsets": int(episodes)}
        env = make_env(ENV_ID, env_args)
        try:
            table = run_policy(env, make_policy(env), episodes, seed=int(jobset_seed))
        finally:
            env.close()
        load = rate_load(rate, env_args)
        per_episode = pd.DataFrame(table.attrs["episodes"])
        table = table.copy()
        table.attrs = {}
        for frame in (table, per_episode):
            frame.insert(0, "load", load)
            frame.insert(0, "rate", float(rate))
        means = episode_summary(table).set_index("episode")
        for metric in ("mean_slowdown", "mean_completion_time"):
            per_episode[metric] = per_episode["episode"].map(means[metric])
        jobs.append(table)
        summary.append(per_episode)
    return pd.concat(jobs, ignore_index=True), pd.concat(summary, ignore_index=True)


def agent_policy_factory(run: str | Path, deterministic: bool = False,
                         seed: int = 0) -> tuple[Callable, dict]:
    """``(make_policy, train_env_kwargs)`` for a trained run folder.

    ``deterministic=False`` samples actions from the policy, as Stable-Baselines (v2)'s ``predict``
    did by default and as DeepRM's test code did; the sampler (torch's RNG) is reseeded with
    ``seed`` whenever a policy is made (once per evaluated rate), so results are reproducible.
    """
    import torch

    from schedrl.envs.rollout import sb3_policy
    from schedrl.experiments.evaluate import load_run

    model, config = load_run(run)

    def make_policy(env):
        torch.manual_seed(seed)
        return sb3_policy(model, deterministic=deterministic)

    return make_policy, dict(config["env_kwargs"])


# ---------------------------------------------------------------------------------------------
# DeepRM's own agent (Mao et al. 2016): REINFORCE trained for slowdown at every rate of the sweep.

DEEPRM_AGENT = "deeprm_pg"
DEEPRM_AGENT_LABEL = "DeepRM (Mao et al.) agent, trained per load"


def deeprm_agent_runs(spec: dict) -> list[tuple[float, int]]:
    """(rate, seed) of every configured DeepRM-agent run; empty without a ``deeprm_agent`` block."""
    agent = spec.get("deeprm_agent")
    if not agent:
        return []
    seeds = agent.get("seeds") or spec["seeds"][:1]
    return [(float(r), int(s)) for r in agent["rates"] for s in seeds]


def deeprm_agent_dir(root: str | Path, variant: str, rate: float, seed: int) -> Path:
    return Path(root) / variant / DEEPRM_AGENT / "slowdown" / f"rate{float(rate):g}" / f"seed{seed}"


def deeprm_agent_paths(spec: dict, root: str | Path, what: str = "episodes") -> list[Path]:
    """Evaluation files (``episodes`` / ``jobs``) or ``timing`` of every DeepRM-agent run."""
    agent = spec.get("deeprm_agent")
    out = []
    for rate, seed in deeprm_agent_runs(spec):
        folder = deeprm_agent_dir(root, agent["variant"], rate, seed)
        out.append(folder / "timing.json" if what == "timing" else eval_paths(folder)[what])
    return out


def deeprm_agent_env_kwargs(spec: dict, rate: float) -> dict[str, Any]:
    agent = spec["deeprm_agent"]
    return env_kwargs(spec, agent["variant"], "slowdown", rate=rate, num_jobsets=int(agent["jobsets"]))


def train_deeprm_agent(spec: dict, rate: float, seed: int, run: str | Path, threads: int = 1):
    """Train DeepRM's agent at ``rate`` (hyperparams/deeprm_pg.yaml; trajectories from the config)."""
    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.experiments.train import train_pg

    agent = spec.get("deeprm_agent")
    if not agent:
        raise ConfigError("deeprm.deeprm_agent is not configured")
    if not any(np.isclose(rate, r) for r in agent["rates"]):
        raise ConfigError(f"rate {rate} is not one of deeprm.deeprm_agent.rates {agent['rates']}")
    hp = load_hyperparams(DEEPRM_AGENT, hyperparams_variant(agent["variant"]),
                          overrides={"trajectories": int(agent["trajectories"])})
    return train_pg(ENV_ID, deeprm_agent_env_kwargs(spec, rate), hp, int(agent["iterations"]), seed, run,
                    wrappers=WRAPPERS, variant=hyperparams_variant(agent["variant"]),
                    checkpoint_every=int(agent.get("checkpoint_every", 10)), threads=threads,
                    on_mismatch="restart")


def deeprm_agent_episodes(spec: dict, root: str | Path) -> pd.DataFrame | None:
    """Evaluation episodes of the DeepRM agent, each run at its own training rate (None if not configured)."""
    agent = spec.get("deeprm_agent")
    if not agent:
        return None
    frames = []
    for (rate, seed), path in zip(deeprm_agent_runs(spec), deeprm_agent_paths(spec, root)):
        frame = at_rate(read_csv(path), rate)
        frames.append(frame.assign(policy=DEEPRM_AGENT_LABEL, algo=DEEPRM_AGENT, objective="slowdown", seed=seed))
    return pd.concat(frames, ignore_index=True)


def deeprm_agent_in_figure(spec: dict, name: str) -> bool:
    """Load sweeps whose variant shares the agent's state (and so its job model and load axis)."""
    agent = spec.get("deeprm_agent")
    fig = figure_spec(name)
    return bool(agent) and fig.kind == "load" and parse_variant(fig.variant)[1] == parse_variant(agent["variant"])[1]


def baseline_policy_factory(name: str) -> Callable:
    from schedrl.envs.rollout import grid_policy

    if name not in BASELINES:
        raise ConfigError(f"unknown DeepRM baseline '{name}' (choose from: {', '.join(BASELINES)})")
    return lambda env: grid_policy(name, env)


# ---------------------------------------------------------------------------------------------
# Reading results back: what figures and claims need.

def read_csv(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    if not path.exists():
        raise InputFileError(path, "missing (run its Snakemake rule first)")
    return pd.read_csv(path)


def label(algo: str, objective: str | None = None) -> str:
    names = {"dqn": "DQN", "a2c": "A2C", "ppo": "PPO", "trpo": "TRPO", "maskable_ppo": "MaskablePPO",
             DEEPRM_AGENT: "DeepRM agent",
             "sjf": "SJF", "packer": "Packer", "random": "Random"}
    text = names.get(algo, algo)
    return f"{text} ({objective.replace('_', ' ')})" if objective else text


def agent_runs(spec: dict, variant: str, objectives: Iterable[str] | None = None,
               algos: Iterable[str] | None = None) -> list[tuple[str, str, int]]:
    """(algo, objective, seed) of the variant's configured agents."""
    block = variant_spec(spec, variant)
    algos = list(algos if algos is not None else block["algos"])
    objectives = list(objectives if objectives is not None else spec["objectives"])
    return [(a, o, s) for a in algos for o in objectives for s in spec["seeds"]]


def episodes_table(spec: dict, root: str | Path, variant: str, *, objectives=None, algos=None,
                   baselines: bool = True) -> pd.DataFrame:
    """Every evaluation episode of a variant: columns policy, algo, objective, seed, rate, load, ..."""
    frames = []
    for algo, objective, seed in agent_runs(spec, variant, objectives, algos):
        frame = read_csv(eval_paths(run_dir(root, variant, algo, objective, seed))["episodes"])
        frames.append(frame.assign(policy=label(algo, objective), algo=algo, objective=objective, seed=seed))
    if baselines:
        for name in spec["baselines"]:
            frame = read_csv(eval_paths(baseline_dir(root, variant, name))["episodes"])
            frames.append(frame.assign(policy=label(name), algo=name, objective="", seed=-1))
    return pd.concat(frames, ignore_index=True)


def load_curve(episodes: pd.DataFrame) -> pd.DataFrame:
    """Mean slowdown per policy and load: mean over seeds of the per-seed mean over episodes,
    with the standard error over seeds (0 for a single seed) and over episodes."""
    per_seed = (episodes.groupby(["policy", "algo", "objective", "seed", "rate", "load"], sort=False)
                ["mean_slowdown"].mean().reset_index())
    out = per_seed.groupby(["policy", "algo", "objective", "rate", "load"], sort=False)["mean_slowdown"].agg(
        mean_slowdown="mean", seeds="count", sem_seeds="sem").reset_index()
    out["sem_seeds"] = out["sem_seeds"].fillna(0.0)
    out["load_pct"] = 100 * out["load"]
    return out


def at_rate(frame: pd.DataFrame, rate: float) -> pd.DataFrame:
    sel = frame[np.isclose(frame["rate"], rate)]
    if sel.empty:
        raise ConfigError(f"rate {rate} is not in the evaluated rates {sorted(frame['rate'].unique())}")
    return sel


def learning_curve(curves: list[pd.DataFrame], episodes_per_iteration: int) -> pd.DataFrame:
    """Per-iteration statistics of training episodes (iteration = ``episodes_per_iteration``
    consecutive episodes of one run), averaged over runs (seeds)."""
    rows = []
    for seed_index, curve in enumerate(curves):
        curve = curve.reset_index(drop=True)
        it = curve.index // max(1, int(episodes_per_iteration))
        grouped = curve.groupby(it)
        stats = pd.DataFrame({
            "iteration": grouped.size().index + 1,
            "timesteps": grouped["timesteps"].max().to_numpy(),
            "mean_reward": grouped["reward"].mean().to_numpy(),
            "max_reward": grouped["reward"].max().to_numpy(),
            "mean_slowdown": grouped["mean_slowdown"].mean().to_numpy(),
            "mean_completion_time": grouped["mean_completion_time"].mean().to_numpy(),
        })
        stats["run"] = seed_index
        rows.append(stats)
    frame = pd.concat(rows, ignore_index=True)
    return frame.groupby("iteration").agg(
        timesteps=("timesteps", "mean"), mean_reward=("mean_reward", "mean"),
        max_reward=("max_reward", "max"), mean_slowdown=("mean_slowdown", "mean"),
        mean_completion_time=("mean_completion_time", "mean"), runs=("run", "count")).reset_index()


def length_fractions(jobs: pd.DataFrame, max_job_len: int) -> pd.DataFrame:
    """By job length: generated jobs, withheld jobs, and their fractions (report figs 5.7/5.8)."""
    lengths = np.arange(1, int(max_job_len) + 1)
    generated = jobs["length"].value_counts().reindex(lengths, fill_value=0)
    withheld = jobs.loc[jobs["withheld"].astype(bool), "length"].value_counts().reindex(lengths, fill_value=0)
    out = pd.DataFrame({"length": lengths, "generated": generated.to_numpy(), "withheld": withheld.to_numpy()})
    out["fraction_of_generated"] = out["generated"] / max(1, out["generated"].sum())
    out["fraction_of_withheld"] = out["withheld"] / max(1, out["withheld"].sum())
    out["withheld_share_of_length"] = np.where(out["generated"] > 0,
                                               out["withheld"] / out["generated"].clip(lower=1), 0.0)
    return out


# ---------------------------------------------------------------------------------------------
# The report's figures 5.1-5.18: what each shows and which runs it reads.

class FigureSpec(tuple):
    """(kind, variant, algos, caption) of one report figure."""

    __slots__ = ()

    def __new__(cls, kind: str, variant: str, algos: tuple[str, ...], caption: str):
        return super().__new__(cls, (kind, variant, algos, caption))

    kind = property(lambda self: self[0])
    variant = property(lambda self: self[1])
    algos = property(lambda self: self[2])
    caption = property(lambda self: self[3])


# kinds: load (slowdown vs load), box (slowdown and completion time at box_rate), curve (learning
# curve of slowdown), reward (reward curve), curves (slowdown, reward, completion time), lengths
# (generated and/or withheld job lengths at withheld_rate). algos () = the variant's configured ones.
FIGURES: dict[str, FigureSpec] = {
    "fig5_1": FigureSpec("load", "discrete-stacked", (), "Average job slowdown at different loads (discrete, phase 1)"),
    "fig5_2": FigureSpec("box", "discrete-stacked", (), "Performance at cluster load 130% (discrete, phase 1)"),
    "fig5_3": FigureSpec("box", "discrete-image", (), "Performance at cluster load 130% (discrete, phase 2)"),
    "fig5_4": FigureSpec("load", "discrete-image", (), "Average job slowdown at different loads (discrete, phase 2)"),
    "fig5_5": FigureSpec("curve", "discrete-image", ("a2c",), "Learning curve of slowdown, A2C (discrete, phase 2)"),
    "fig5_6": FigureSpec("reward", "discrete-image", ("a2c",), "Reward curve of slowdown, A2C (discrete, phase 2)"),
    "fig5_7": FigureSpec("generated", "discrete-image", ("a2c",), "Fraction of jobs generated, A2C (discrete, phase 2)"),
    "fig5_8": FigureSpec("withheld", "discrete-image", ("a2c",), "Length of withheld jobs, A2C (discrete, phase 2)"),
    "fig5_9": FigureSpec("load", "multibinary-stacked", (), "Average job slowdown at different loads (multi-binary, phase 1)"),
    "fig5_10": FigureSpec("box", "multibinary-stacked", (), "Performance at cluster load 130% (multi-binary, phase 1)"),
    "fig5_11": FigureSpec("curve", "multibinary-stacked", ("a2c",), "Learning curve of A2C for slowdown (multi-binary, phase 1)"),
    "fig5_12": FigureSpec("reward", "multibinary-stacked", ("a2c",), "Reward curve of A2C for slowdown (multi-binary, phase 1)"),
    "fig5_13": FigureSpec("withheld", "multibinary-stacked", ("a2c",), "Length of withheld jobs, A2C (multi-binary, phase 1)"),
    "fig5_14": FigureSpec("load", "multibinary-image", (), "Average job slowdown at different loads (multi-binary, phase 2)"),
    "fig5_15": FigureSpec("box", "multibinary-image", (), "Performance at cluster load 130% (multi-binary, phase 2)"),
    "fig5_16": FigureSpec("curves", "multibinary-image", ("a2c",), "Learning curves of A2C (multi-binary, phase 2)"),
    "fig5_17": FigureSpec("curves", "multibinary-image", ("ppo",), "Learning curves of PPO (multi-binary, phase 2)"),
    "fig5_18": FigureSpec("lengths", "multibinary-image", ("a2c", "ppo"),
                          "Generated jobs and withheld job lengths at 110%, A2C and PPO (multi-binary, phase 2)"),
}


def figure_spec(name: str) -> FigureSpec:
    if name not in FIGURES:
        raise ConfigError(f"unknown DeepRM figure '{name}' (known: {', '.join(FIGURES)})")
    return FIGURES[name]


def figure_algos(spec: dict, name: str) -> list[str]:
    fig = figure_spec(name)
    return list(fig.algos) or list(variant_spec(spec, fig.variant)["algos"])


def figure_objectives(spec: dict, name: str) -> list[str]:
    kind = figure_spec(name).kind
    if kind == "box":
        return list(spec["objectives"])
    if kind == "curves":
        return [o for o in OBJECTIVES if o in spec["objectives"]] or ["slowdown"]
    return ["slowdown"]  # load sweeps, slowdown curves and job lengths: agents trained for slowdown


def figure_inputs(spec: dict, root: str | Path, name: str) -> list[Path]:
    """Files figure ``name`` reads (the Snakemake input function uses this)."""
    fig = figure_spec(name)
    runs = [run_dir(root, fig.variant, a, o, s) for a in figure_algos(spec, name)
            for o in figure_objectives(spec, name) for s in spec["seeds"]]
    baselines = [eval_paths(baseline_dir(root, fig.variant, b))["episodes"] for b in spec["baselines"]]
    if fig.kind in ("load", "box"):
        extra = deeprm_agent_paths(spec, root) if deeprm_agent_in_figure(spec, name) else []
        return [eval_paths(r)["episodes"] for r in runs] + baselines + extra
    if fig.kind in ("curve", "reward", "curves"):
        return [r / "learning_curve.csv" for r in runs] + baselines
    return [eval_paths(r)["jobs"] for r in runs]
