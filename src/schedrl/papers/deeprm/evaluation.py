"""DeepRM experiments of the SB3 report: playing and evaluating agents.

Every agent and every heuristic (SJF, Packer, Random) is evaluated on held-out job sets (other
seeds) across a grid of arrival rates, under the protocols of ``layout`` (``protocol_setup``). This
module holds

* ``evaluate_over_rates``: per-job and per-episode tables of one policy across rates, and the
  policy factories of trained models (``agent_policy_factory``, ``model_policy_factory``),
* the report protocol replayed (``replay_report``, ``replay_summary``),
* the budget checkpoints played (``evaluate_budgets``) and read back (``budget_episodes``),
* the behaviour fingerprint recorded while an evaluation plays (``evaluate_recorded``,
  ``write_agent_fingerprint``),
* readers and summaries the figures and claims use (load curves, 130% boxes, learning curves by
  iteration, job-length fractions of generated and withheld jobs).

The report protocol plays one sampled episode per seed, so its in-sample result can be a lucky draw:
``replay_report`` replays its chosen model on the same sequence at the box rate with
``REPLAY_SAMPLING_SEEDS`` (20) sampling seeds and ``replay_summary`` puts a median, a 10-90% range and
the share below SJF on it (discrete phase 2's slowdown agents, ``replay_runs``).

Every per-episode table carries the slowdown three ways: ``mean_slowdown_all``,
``mean_slowdown_placed`` and the never-placed jobs (``n_never_placed``, ``never_placed_lengths``,
lengths joined by ";"); ``mean_slowdown`` / ``mean_completion_time`` are the protocol's headline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.io import read_json, read_result
from schedrl.papers.deeprm.layout import (
    DEEPRM_AGENT,
    DEEPRM_AGENT_LABEL,
    ENV_ID,
    LOAD_KEYS,
    REPLAY_SAMPLING_SEEDS,
    agent_eval_dir,
    agent_runs,
    baseline_dir,
    budget_path,
    deeprm_agent_dir,
    deeprm_agent_paths,
    deeprm_agent_runs,
    eval_paths,
    label,
    protocol_setup,
    reference_dir,
    run_dir,
)
from schedrl.papers.deeprm.training import best_in_sample_model


def rate_load(rate: float, kwargs: dict) -> float:
    """Expected cluster load (fraction) of ``rate`` for an env with ``kwargs`` (report eq. 4.1, per resource)."""
    from schedrl.workloads.deeprm import load_for_rate

    return float(load_for_rate(rate, **{k: kwargs[k] for k in LOAD_KEYS if k in kwargs}))


def episode_slowdowns(table: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Per episode of a ``run_policy`` table: slowdown and completion time over all jobs and over
    placed jobs, the never-placed jobs (count, lengths), and the protocol's headline columns."""
    placed = table["state"] != "waiting"
    rows = []
    for ep, part in table.groupby("episode", sort=True):
        on = placed.loc[part.index]
        never = part.loc[~on, "length"].astype(int).tolist()
        rows.append({"episode": ep, "jobset_seed": int(part["jobset_seed"].iloc[0]), "n_jobs": len(part),
                     "mean_slowdown_all": part["slowdown"].mean(),
                     "mean_completion_time_all": part["completion_time"].mean(),
                     "mean_slowdown_placed": part.loc[on, "slowdown"].mean() if on.any() else np.nan,
                     "mean_completion_time_placed": part.loc[on, "completion_time"].mean() if on.any() else np.nan,
                     "n_never_placed": len(never), "never_placed_lengths": ";".join(map(str, never))})
    out = pd.DataFrame(rows)
    which = "placed" if protocol == "report" else "all"
    out["mean_slowdown"] = out[f"mean_slowdown_{which}"]
    out["mean_completion_time"] = out[f"mean_completion_time_{which}"]
    return out


def never_placed_lengths(column: pd.Series) -> list[int]:
    """Lengths of the never-placed jobs of episodes, from their ``never_placed_lengths`` cells
    (";"-joined text; a single length reads back from CSV as a number, an empty cell as NaN)."""
    out = []
    for cell in column:
        if isinstance(cell, str):
            out += [int(float(x)) for x in cell.split(";") if x]
        elif pd.notna(cell):
            out.append(int(cell))
    return out


def evaluate_over_rates(make_policy: Callable, kwargs: dict, rates: Iterable[float], episodes: int,
                        jobset_seed: int, protocol: str = "heldout") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Play ``make_policy(env)`` on ``episodes`` job sets at each rate under ``protocol``.

    ``kwargs`` already carry the protocol's overrides (``protocol_setup``). Job set k of every rate
    is the k-th set of seed ``jobset_seed`` (pcg64: seed ``jobset_seed + k``; legacy: the k-th piece
    of one stream), so all policies see the same jobs. Returns (per-job table, per-episode table),
    both with columns ``rate`` and ``load``; see ``episode_slowdowns`` for the episode columns.
    """
    from tqdm.auto import tqdm

    from schedrl.envs.rollout import run_policy
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
        means = episode_slowdowns(table, protocol).set_index("episode")
        for column in means.columns:
            if column not in per_episode.columns:
                per_episode[column] = per_episode["episode"].map(means[column])
        jobs.append(table)
        summary.append(per_episode)
    return pd.concat(jobs, ignore_index=True), pd.concat(summary, ignore_index=True)


def agent_policy_factory(run: str | Path, deterministic: bool = False,
                         seed: int = 0, best_in_sample: dict | None = None) -> tuple[Callable, dict]:
    """``(make_policy, train_env_kwargs)`` for a trained run folder.

    ``deterministic=False`` samples actions from the policy, as Stable-Baselines (v2)'s ``predict``
    did by default and as DeepRM's test code did; the sampler (torch's RNG) is reseeded with
    ``seed`` whenever a policy is made (once per evaluated rate), so results are reproducible.
    ``best_in_sample`` (env overrides, the report protocol): play the run's ``best_model.zip``
    (its training-time selection, ``report_selection``) instead of the final one, or in a run folder
    without one (trained before it) the model chosen by ``best_in_sample_model``;
    ``make_policy.chosen`` names it.
    """
    import torch

    from schedrl.envs.rollout import sb3_policy
    from schedrl.experiments.evaluate import load_run

    model, config = load_run(run)
    chosen = "model.zip"
    if best_in_sample is not None:
        from schedrl.agents.registry import algo_class
        from schedrl.experiments.selection import BEST_MODEL, read_selection

        state = read_selection(run)
        if state is not None:
            model = algo_class(config["algo"]).load(Path(run) / BEST_MODEL, device="cpu")
            chosen = f"{BEST_MODEL} (step {state['best_step']} of {state['checks']} checks)"
        else:
            model, chosen, _ = best_in_sample_model(run, model, config, best_in_sample, seed)

    def make_policy(env):
        torch.manual_seed(seed)
        return sb3_policy(model, deterministic=deterministic)

    make_policy.chosen = chosen
    make_policy.model = model  # the fingerprint reads the played model's scores
    return make_policy, dict(config["env_kwargs"])


def model_policy_factory(model, deterministic: bool, seed: int) -> Callable:
    """``make_policy(env)`` of a model (trained or not), its sampler reseeded for every rate."""
    import torch

    from schedrl.envs.rollout import sb3_policy

    def make_policy(env):
        torch.manual_seed(seed)
        return sb3_policy(model, deterministic=deterministic)

    make_policy.model = model
    return make_policy



# ---------------------------------------------------------------------------------------------
# The report protocol replayed (issue 57 item 3): the same model on the same sequence at the box rate
# once per sampling seed (``REPLAY_SAMPLING_SEEDS``; which runs: ``layout.replay_runs``).

def sampling_seed_list(sampling_seeds: int | Iterable[int]) -> list[int]:
    """``n`` -> seeds 0..n-1; a list of seeds as given (distinct)."""
    if isinstance(sampling_seeds, (int, np.integer)):
        if sampling_seeds < 1:
            raise ConfigError(f"sampling seeds must be >= 1, got {sampling_seeds}")
        return list(range(int(sampling_seeds)))
    seeds = [int(s) for s in sampling_seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ConfigError(f"sampling seeds must be distinct and at least one, got {seeds}")
    return seeds


def replay_policy_factory(model, seed: int) -> Callable:
    """``make_policy(env)`` of the report protocol's sampled play with its samplers seeded ``seed``:
    torch's (A2C, PPO, TRPO sample their actions from it; the report protocol seeds it with its job-set
    seed, ``agent_policy_factory``) and numpy's global RNG and the action space, which DQN's
    epsilon-greedy draw reads (the report protocol leaves those unseeded)."""
    torch_seeded = model_policy_factory(model, False, seed)

    def make_policy(env):
        np.random.seed(seed)
        model.action_space.seed(seed)
        return torch_seeded(env)

    make_policy.model = model
    return make_policy


def _chosen_step(chosen: str, model) -> int:
    """Training step of the played model: from ``best_model.zip (step N ...)`` or ``step_N.zip``,
    else (the final model) the model's own step count."""
    match = re.search(r"step[ _](\d+)", chosen)
    return int(match.group(1)) if match else int(model.num_timesteps)


def replay_report(spec: dict, run: str | Path, sampling_seeds: int | Iterable[int] = REPLAY_SAMPLING_SEEDS,
                  rate: float | None = None) -> pd.DataFrame:
    """Replay the report protocol's model of ``run`` (``agent_policy_factory(run, best_in_sample=...)``:
    ``best_model.zip`` of the training-time selection) on the protocol's job sequence (its seed,
    overrides, episodes) at ``rate`` (default ``eval.box_rate``), once per sampling seed.

    The model is chosen once, as the report protocol chooses it (with its seed). Everything but the
    sampler is the protocol's: the env and its job sequence are seeded with the protocol's job-set
    seed, so the replay of sampling seed ``eval.report.jobset_seed`` (42) is the protocol's own
    episode, and seed s is the protocol's play with its sampler seeded s. Returns the per-episode
    table of ``evaluate_over_rates`` (``mean_slowdown`` as the protocol counts it: placed jobs only)
    with columns sampling_seed, algo, seed (training), model (which file) and model_step."""
    setup = protocol_setup(spec, "report")
    rate = float(spec["eval"]["box_rate"] if rate is None else rate)
    seeds = sampling_seed_list(sampling_seeds)
    chosen, kwargs = agent_policy_factory(run, setup["deterministic"], setup["jobset_seed"],
                                          best_in_sample=setup["overrides"])
    config = read_json(Path(run) / "config.json")
    kwargs = {**kwargs, **setup["overrides"]}
    step = _chosen_step(chosen.chosen, chosen.model)
    frames = []
    for s in seeds:
        _, episodes = evaluate_over_rates(replay_policy_factory(chosen.model, s), kwargs, [rate], setup["episodes"],
                                          setup["jobset_seed"], protocol="report")
        episodes.insert(0, "sampling_seed", s)
        frames.append(episodes)
    out = pd.concat(frames, ignore_index=True)
    out.insert(1, "algo", config["algo"])
    out.insert(2, "seed", int(config["seed"]))
    out["model"] = chosen.chosen
    out["model_step"] = step
    return out


def replay_summary(replays: pd.DataFrame, sjf: float | None) -> pd.DataFrame:
    """Per agent (algo, seed) of replay tables: the played model's step, replays, median, 10th and
    90th percentile (numpy's linear interpolation) of the mean slowdown per sampling seed (the mean
    over its episodes; the report protocol plays one), and the share of sampling seeds strictly below
    ``sjf`` (NaN without one)."""
    per_seed = (replays.groupby(["algo", "seed", "sampling_seed"], sort=False)
                .agg(mean_slowdown=("mean_slowdown", "mean"), model_step=("model_step", "first")).reset_index())
    rows = []
    for (algo, seed), part in per_seed.groupby(["algo", "seed"], sort=False):
        values = part["mean_slowdown"].to_numpy(dtype=float)
        rows.append({"algo": algo, "seed": int(seed), "model_step": int(part["model_step"].iloc[0]),
                     "replays": len(values), "median": float(np.median(values)),
                     "p10": float(np.percentile(values, 10)), "p90": float(np.percentile(values, 90)),
                     "share_below_sjf": float(np.mean(values < sjf)) if sjf is not None else np.nan,
                     "sjf": np.nan if sjf is None else float(sjf)})
    return pd.DataFrame(rows)



# ---------------------------------------------------------------------------------------------
# Reading results back: what figures and claims need.

read_csv = read_result  # results written by this paper's rules (missing: one clear line)


def episodes_table(spec: dict, root: str | Path, variant: str, *, objectives=None, algos=None,
                   baselines: bool = True, protocol: str = "heldout", reference: str | None = None) -> pd.DataFrame:
    """Every evaluation episode of a variant under ``protocol``: columns policy, algo, objective,
    seed, rate, load, ... With ``reference`` (``REFERENCES``) each agent's rows are its random or
    untrained stand-in's, under the agent's labels."""
    frames = []
    for algo, objective, seed in agent_runs(spec, variant, objectives, algos):
        folder = agent_eval_dir(root, variant, algo, objective, seed, reference)
        frame = read_csv(eval_paths(folder, protocol)["episodes"])
        frames.append(frame.assign(policy=label(algo, objective), algo=algo, objective=objective, seed=seed))
    if baselines:
        for name in spec["baselines"]:
            frame = read_csv(eval_paths(baseline_dir(root, variant, name), protocol)["episodes"])
            frames.append(frame.assign(policy=label(name), algo=name, objective="", seed=-1))
    return _concat_episodes(frames)


def _concat_episodes(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The frames as one; none (a variant that trains no agent at this scale, config/paper-budget.yaml,
    and only its agents asked for) is an empty table with the columns readers select on."""
    if not frames:
        return pd.DataFrame(columns=["policy", "algo", "objective", "seed", "rate", "load", "episode",
                                     "mean_slowdown", "mean_completion_time"])
    return pd.concat(frames, ignore_index=True)


def deeprm_agent_episodes(spec: dict, root: str | Path, protocol: str = "heldout",
                          reference: str | None = None) -> pd.DataFrame | None:
    """Evaluation episodes of the DeepRM agent, each run at its own training rate (None if not
    configured); with ``reference`` its random or untrained stand-in's episodes at those rates."""
    agent = spec.get("deeprm_agent")
    if not agent:
        return None
    frames = []
    runs = [(r, s) for r, s in deeprm_agent_runs(spec)
            if any(np.isclose(r, x) for x in protocol_setup(spec, protocol)["rates"])]
    if not runs:
        return None
    for (rate, seed), path in zip(runs, deeprm_agent_paths(spec, root, protocol=protocol)):
        if reference:
            path = eval_paths(reference_dir(root, agent["variant"], reference, DEEPRM_AGENT, seed), protocol)["episodes"]
        frame = at_rate(read_csv(path), rate)
        frames.append(frame.assign(policy=DEEPRM_AGENT_LABEL, algo=DEEPRM_AGENT, objective="slowdown", seed=seed))
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
# Claims against training budget (issue 24): the checkpoints at 1/8, 1/4 and 1/2 of each agent's
# training, played under a protocol at the claims' load; the final share is the final evaluation.

def _load_checkpoint(path: Path, algo: str):
    from schedrl.agents.registry import algo_class

    if algo == DEEPRM_AGENT:
        import torch

        from schedrl.agents.reinforce import ReinforcePolicy

        return ReinforcePolicy.from_state(torch.load(path, map_location="cpu", weights_only=False)["model"])
    return algo_class(algo).load(path, device="cpu")


def evaluate_budgets(spec: dict, run: str | Path, protocol: str, rate: float) -> pd.DataFrame:
    """Per-episode table of ``run``'s checkpoints at 1/8, 1/4 and 1/2 of its training
    (``RunFolder.budget_checkpoints``) played under ``protocol`` at ``rate``, with columns
    ``fraction`` and ``budget`` (env steps, or iterations for DeepRM's agent). Each checkpoint is
    played as the final model is (same job sets, sampling seed, overrides); the report protocol's
    choice of the best in-sample checkpoint applies to the final model only."""
    import torch

    from schedrl.agents.runs import RunFolder
    from schedrl.envs.rollout import sb3_policy
    from schedrl.io import read_json

    run = Path(run)
    config = read_json(run / "config.json")
    algo = config["algo"]
    pg = algo == DEEPRM_AGENT
    folder = RunFolder(run, prefix="iter_", suffix=".pt") if pg else RunFolder(run)
    # the steps asked for, not those trained: PPO and TRPO finish their last rollout past the target
    # (300,032 of 300,000), and 1/8 of that would skip the checkpoint at 1/8 for the one at 1/4
    target = int(config.get("total_steps") or read_json(run / "timing.json")["iterations" if pg else "steps"])
    setup = protocol_setup(spec, protocol)
    kwargs = {**config["env_kwargs"], **setup["overrides"]}
    frames = []
    for fraction, n, path in folder.budget_checkpoints(target):
        model = _load_checkpoint(path, algo)

        def make_policy(env, model=model):
            torch.manual_seed(setup["jobset_seed"])
            return sb3_policy(model, deterministic=setup["deterministic"])

        _, episodes = evaluate_over_rates(make_policy, kwargs, [rate], setup["episodes"], setup["jobset_seed"],
                                          protocol=protocol)
        frames.append(episodes.assign(fraction=fraction, budget=n, model=path.name))
    if not frames:
        return pd.DataFrame(columns=["rate", "load", "episode", "fraction", "budget", "model"])
    return pd.concat(frames, ignore_index=True)


def _budget_part(path: Path, fraction: float) -> pd.DataFrame:
    frame = read_csv(path)
    return frame[np.isclose(frame["fraction"], fraction)] if "fraction" in frame.columns else frame.iloc[:0]


def budget_episodes(spec: dict, root: str | Path, variant: str, protocol: str, fraction: float) -> pd.DataFrame:
    """The variant's agents' episodes at ``fraction`` of their training (``evaluate_budgets``
    files), with the columns of ``episodes_table``."""
    frames = [_budget_part(budget_path(run_dir(root, variant, a, o, s), protocol), fraction)
              .assign(policy=label(a, o), algo=a, objective=o, seed=s) for a, o, s in agent_runs(spec, variant)]
    return _concat_episodes(frames)


def deeprm_agent_budget_episodes(spec: dict, root: str | Path, protocol: str, fraction: float) -> pd.DataFrame | None:
    """DeepRM's agent at the box rate at ``fraction`` of its training (None if not configured there)."""
    agent, box = spec.get("deeprm_agent"), float(spec["eval"]["box_rate"])
    runs = [(r, s) for r, s in deeprm_agent_runs(spec) if np.isclose(r, box)]
    if not agent or not runs:
        return None
    frames = [_budget_part(budget_path(deeprm_agent_dir(root, agent["variant"], r, s), protocol), fraction)
              .assign(policy=DEEPRM_AGENT_LABEL, algo=DEEPRM_AGENT, objective="slowdown", seed=s) for r, s in runs]
    return pd.concat(frames, ignore_index=True)



# ---------------------------------------------------------------------------------------------
# What did the agents learn (issue 41): a behaviour fingerprint of every evaluated agent (and of the
# no-learning references, ``references``), recorded while its evaluation plays.

def valid_mask(env) -> np.ndarray:
    """Valid actions as one mask over the discrete actions (multi-binary: the slots that fit, then
    void). The core's ``fingerprint.valid_actions`` takes gymnasium's ``MultiBinary`` for a
    ``Discrete`` (both have ``n``) and returns the raw (2 x slots) mask there; this reads the space's
    type instead."""
    from gymnasium import spaces

    base = env.unwrapped
    mask = np.asarray(base.action_masks(), dtype=bool)
    return mask if isinstance(base.action_space, spaces.Discrete) else np.append(mask[1::2], True)


def _recorder():
    """A ``FingerprintRecorder`` whose masks and window rows come from ``valid_mask`` (one row per
    action, void a NaN row), so multi-binary agents are recorded too."""
    from schedrl.experiments.fingerprint import (
        FingerprintRecorder,
        discrete_action,
        heuristic_picks,
        window_jobs,
    )

    class Recorder(FingerprintRecorder):
        def record(self, obs, action) -> None:
            mask = valid_mask(self.env)
            if mask.sum() < 2:
                self.decisions.total += 1
                return
            jobs = window_jobs(self.env)[: len(mask)]
            if len(jobs) < len(mask):
                jobs = np.vstack([jobs, np.full((len(mask) - len(jobs), 3), np.nan)])
            self.decisions.add(mask, discrete_action(action, mask), heuristic_picks(jobs, mask),
                               self.policy_input(obs, self.env))

    return Recorder(None)


def agent_view(model):
    """The fingerprint's view of a model: REINFORCE's logits or an SB3 model's (none for random)."""
    from schedrl.experiments.fingerprint import AgentView, reinforce_view, sb3_view

    if model is None:
        return AgentView()
    from schedrl.agents.reinforce import ReinforcePolicy

    return reinforce_view(model) if isinstance(model, ReinforcePolicy) else sb3_view(model)


def evaluate_recorded(make_policy: Callable, kwargs: dict, rates: Iterable[float], episodes: int,
                      jobset_seed: int, protocol: str):
    """``evaluate_over_rates`` with every decision recorded for the fingerprint (the recorder only
    reads the env, so the episodes are those of an unrecorded evaluation). Returns (jobs, episodes,
    decisions)."""
    recorder = _recorder()

    def recorded(env):
        recorder.env = env  # one env per rate; the decisions of every rate pool
        return recorder.wrap(make_policy(env))

    jobs, table = evaluate_over_rates(recorded, kwargs, rates, episodes, jobset_seed, protocol=protocol)
    return jobs, table, recorder.decisions


def write_agent_fingerprint(path: str | Path, decisions, played, /, **meta) -> dict:
    """Fingerprint ``decisions`` with the view of the ``played`` model (None: random play) and
    write ``path`` with ``meta``; returns the fingerprint."""
    from schedrl.experiments.fingerprint import fingerprint, write_fingerprint

    fp = fingerprint(decisions, agent_view(played))
    write_fingerprint(path, fp, **meta)
    return fp


def agent_name(variant: str, algo: str, objective: str, seed: int | str, kind: str = "trained",
               rate: float | None = None) -> str:
    """Readable name of an evaluated agent, e.g. "A2C (slowdown) discrete-image seed 0"."""
    if kind == "random":
        return f"random valid policy {variant} seed {seed}"
    who = label(algo, objective or None)
    if algo == DEEPRM_AGENT and rate is not None:
        who += f" rate {rate:g}"
    return f"{who} {variant} seed {seed}" + (" untrained" if kind == "untrained" else "")
