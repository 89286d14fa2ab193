"""SEM section 4-5: the DRAS- and SEM-encoded policy-gradient agents (Table 4, Figs. 8-11).

What runs (the pieces are the core's: ``schedrl/HPCPickReserve-v0`` with EASY backfilling, the
``dras`` and ``sem`` encoders, the ``dras_theta`` / ``neg_inv_runtime`` rewards, the REINFORCE
trainer with the ``pair_conv`` network of Table 4):

* ``train_agent``: per trace and encoder, the training part of the SEM split
  (``results/workloads/sem/<trace>/train.swf``: ``episodes`` consecutive blocks of
  ``episode_jobs`` jobs, the split's manifest says how many) is played one block per training
  episode, in order, as section 4.1 says; after each episode the snapshot is validated on the
  unseen validation part (greedy, the convergence curve of Fig. 8), and the final model is
  tested on the unseen test part (Fig. 9). The trainer is called once per episode
  (``train_reinforce`` resumes from its checkpoint and trains one more iteration), so each
  snapshot is on disk when it is validated; the learning is that of one uninterrupted run.
* Time (Fig. 10) is split where it goes: the encoder (``TimedEncoder``), the rest of the
  environment (simulator, reward, masks) and the agent (forward, backward, optimiser, on the
  trainer's clock), plus the trainer's checkpoint and model I/O.
* ``heuristics``: FCFS + EASY and SJF + EASY on the same test part (Fig. 9's reference points).
* ``scaling_run``: Fig. 11's training and inference time for ``jobs`` jobs as the machine grows
  by a factor f (nodes x f, every job's size x f: the schedule and its decision points stay the
  same, so the time differences are the encodings' and networks' alone; K stays the same).
  Training time is the trainer's clock (one episode of the ``jobs`` jobs), inference a greedy
  pass over the next ``jobs`` jobs after a short warm-up pass.

The convergence episode (Fig. 8) is ``convergence_episode``: the first episode from which every
validation value stays within ``tolerance`` x the curve's range of the plateau, the mean of the
last ``window`` values.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.io import read_json, write_csv, write_json
from schedrl.workloads.splits import load_matched_block, offered_load

ENCODERS = ("sem", "dras")
#: where validation jobs come from: the split's validation part, or the block of the training and
#: validation parts whose offered load is closest to the test part's (issue 37 item 3)
VALIDATIONS = ("split", "test_like")
HEURISTICS = ("fcfs", "sjf")
#: Fig. 9's axes: (column in the metrics, how it is turned into "larger is better")
KIVIAT = (("utilization", "utilisation", False), ("mean_wait", "1 / mean wait", True),
          ("max_wait", "1 / max wait", True), ("mean_slowdown", "1 / mean slowdown", True))


@dataclass
class AgentSpec:
    """One agent: a trace's machine, its encoder and reward, Table 4's dense layers, REINFORCE."""

    trace: str
    encoder: str
    nodes: int
    k: int
    hidden: list[int]
    reward: str
    hyperparams: dict = field(default_factory=dict)
    window: int = 50
    seed: int = 0
    threads: int = 1
    #: SWF queue numbers whose jobs carry the priority flag 1 (DRAS/SEM's third job feature)
    priority_queues: tuple = ()
    #: the reward's parameters (``schedrl.envs.rewards``), e.g. ``{"wait_floor": 0}`` for
    #: ``dras_theta``'s paper reading t_i / t_max (default: DRAS's code, t_i / max(t_max, 6 h))
    reward_kwargs: dict = field(default_factory=dict)
    #: the pick-reserve env's decision process (``schedrl.envs.pick_reserve.PROCESSES``): "hold"
    #: (ours, the default) or "dras" (DRAS's public code: the queue head reserved, backfills chosen)
    process: str = "hold"

    def __post_init__(self):
        if self.encoder not in ENCODERS:
            raise ConfigError(f"sem agents: encoder must be one of {', '.join(ENCODERS)}, got '{self.encoder}'")
        if self.nodes < 1 or self.k < 1 or self.window < 1:
            raise ConfigError("sem agents: nodes, k and window must be positive")
        from schedrl.envs.pick_reserve import PROCESSES
        from schedrl.envs.rewards import get_reward

        if self.process not in PROCESSES:
            raise ConfigError(f"sem agents: process must be one of {', '.join(PROCESSES)}, got '{self.process}'")
        self.reward_kwargs = dict(self.reward_kwargs or {})
        get_reward(self.reward, **self.reward_kwargs)  # unknown reward or parameter: one ConfigError line

    def stream(self) -> str:
        """This agent's key for the trainer's action streams (``train_reinforce``'s ``stream``):
        trace, encoder and reward variant, so agents trained with one seed (SEM and DRAS, either
        reward reading) draw independent actions, while each stays reproducible from its seed."""
        kwargs = ",".join(f"{k}={self.reward_kwargs[k]}" for k in sorted(self.reward_kwargs))
        process = "" if self.process == "hold" else f"/process={self.process}"  # hold keeps the old key
        return f"sem/{self.trace}/{self.encoder}/{self.reward}" + (f"/{kwargs}" if kwargs else "") + process

    def reinforce_config(self):
        from schedrl.agents.reinforce import ReinforceConfig

        return ReinforceConfig.from_dict({**self.hyperparams, "network": "pair_conv", "hidden": list(self.hidden)})

    def timing_config(self):
        """``reinforce_config`` with one trajectory per episode: Figs. 6 and 11 time one episode's
        training as the paper's (one-trajectory) trainer does, whatever the agents train with."""
        from dataclasses import replace

        return replace(self.reinforce_config(), trajectories=1, examples_per_update=1)


# --------------------------------------------------------------------------- timing pieces
class TimedEncoder:
    """An encoder that adds the seconds spent in it to ``self.seconds`` (same shape and bounds)."""

    def __init__(self, encoder):
        self.inner, self.seconds, self.calls = encoder, 0.0, 0
        self.shape, self.low, self.high, self.params = encoder.shape, encoder.low, encoder.high, encoder.params

    def __call__(self, *args, **kwargs):
        t0 = time.perf_counter()
        out = self.inner(*args, **kwargs)
        self.seconds += time.perf_counter() - t0
        self.calls += 1
        return out


class Clock:
    """Seconds per part, shared by every env copy of a run."""

    def __init__(self):
        self.env = 0.0
        self.encoders: list[TimedEncoder] = []

    @property
    def encoder(self) -> float:
        return sum(e.seconds for e in self.encoders)


def _make_env(table: pd.DataFrame, spec: AgentSpec, time_scale: float, clock: Clock | None, episode_jobs=None):
    from schedrl.envs.pick_reserve import PickReserveEnv

    env = PickReserveEnv(jobs=table, cluster=int(spec.nodes), encoder=spec.encoder, reward=spec.reward,
                         reward_kwargs=dict(spec.reward_kwargs), window=spec.window, k=spec.k,
                         episode_jobs=episode_jobs, episode_sampling="sequential",
                         time_scale=time_scale, priority_queues=tuple(spec.priority_queues),
                         process=spec.process)
    if clock is not None:
        env.encoder = TimedEncoder(env.encoder)
        clock.encoders.append(env.encoder)
    return env


def _episode_env(table, spec, time_scale, clock: Clock, cursor: dict, episode_jobs: int):
    """An env whose every reset plays training block ``cursor["episode"]`` (jobs
    [e * E, (e + 1) * E)); its step and reset time is added to ``clock.env``."""
    import gymnasium as gym

    inner = _make_env(table, spec, time_scale, clock, episode_jobs)

    class Episodes(gym.Wrapper):
        def reset(self, *, seed=None, options=None):
            t0 = time.perf_counter()
            out = self.env.reset(seed=seed, options={"start": cursor["episode"] * episode_jobs})
            clock.env += time.perf_counter() - t0
            return out

        def step(self, action):
            t0 = time.perf_counter()
            out = self.env.step(action)
            clock.env += time.perf_counter() - t0
            return out

        def action_masks(self):
            return self.env.unwrapped.action_masks()

    return Episodes(inner)


def time_scale_of(table: pd.DataFrame) -> float:
    """The longest requested walltime of the training part: one time scale for every split."""
    req = pd.to_numeric(table["req_time"], errors="coerce").to_numpy(dtype=np.float64)
    run = pd.to_numeric(table["run_time"], errors="coerce").to_numpy(dtype=np.float64)
    longest = np.nanmax(np.where(req > 0, req, run)) if len(req) else np.nan
    return float(longest) if np.isfinite(longest) and longest > 0 else 86_400.0


# --------------------------------------------------------------------------- playing a policy
class RandomValidPolicy:
    """The no-learning reference: a uniform choice among the valid window slots, from its own
    stream keyed by (seed, encoder), so the SEM and DRAS references are two independent players
    (as two trained agents are), each reproducible from the training seed."""

    def __init__(self, seed: int, encoder: str):
        self.rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(ENCODERS.index(encoder), 7)))

    def choose(self, mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


def play_rng(spec: AgentSpec, play_seed: int) -> np.random.Generator:
    """The draws of sampled test play (issue 37 item 4): one stream per play seed, agent seed and
    agent (``spec.stream()``), so SEM and DRAS, or two agent seeds, never share their draws."""
    import zlib

    key = zlib.crc32(spec.stream().encode())
    return np.random.default_rng(np.random.SeedSequence(int(play_seed), spawn_key=(int(spec.seed), key, 4)))


def play_greedy(policy, table: pd.DataFrame, spec: AgentSpec, time_scale: float, *,
                keep_schedule: bool = False, record: bool = False, rng: np.random.Generator | None = None) -> dict:
    """Run ``policy`` greedily (highest probability among the valid window slots) over ``table``;
    the schedule's metrics, the return and the time split into encoder, rest of the env and agent.
    A policy with ``choose(mask)`` (``RandomValidPolicy``) picks by itself instead.
    ``record``: every decision also goes to a ``FingerprintRecorder`` (``out["recorder"]``); its
    time is left out of ``wall_s`` (Fig. 10's inference time).

    How decided the policy is, over the *contested* decisions (more than one valid slot):
    ``contested``, ``top_prob_median`` (median probability of the action taken; 1.0 = a
    deterministic policy, which one-trajectory REINFORCE can no longer move) and ``head_share``
    (share that picks the first valid slot, the queue head: 1.0 = FCFS).

    ``rng`` (``play_rng``): sampled play instead, as DRAS's code tests: each action drawn from the
    policy's softmax over the valid slots."""
    from schedrl import metrics
    from schedrl.sim import ClusterSpec

    clock = Clock()
    env = _make_env(table, spec, time_scale, clock)
    t_start = time.perf_counter()
    t0 = time.perf_counter()
    obs, info = env.reset()
    env_s = time.perf_counter() - t0
    agent_s, total, steps, record_s = 0.0, 0.0, 0, 0.0
    top, head = [], 0
    recorder = None
    if record:
        from schedrl.experiments.fingerprint import FingerprintRecorder

        recorder = FingerprintRecorder(env)
    choose = getattr(policy, "choose", None)
    while True:
        t0 = time.perf_counter()
        mask = info["action_mask"]
        if choose is not None:
            action = choose(mask)
        else:
            logits = policy.forward_batch(obs[None])[0]
            logits = np.where(mask, logits, -np.inf)
            if rng is None:
                action = int(np.argmax(logits))
            else:
                p = np.exp(logits - logits[mask].max())
                action = int(rng.choice(len(p), p=p / p.sum()))
        t1 = time.perf_counter()
        if mask.sum() > 1:
            top.append(1.0 / float(mask.sum()) if choose is not None
                       else 1.0 / float(np.exp(logits[mask] - logits[action]).sum()))
            head += action == int(np.argmax(mask))
        if recorder is not None:  # before the step: the recorder reads the window the action chose from
            recorder.record(obs, action)
            record_s += time.perf_counter() - t1
            t1 = time.perf_counter()
        obs, reward, terminated, truncated, info = env.step(action)
        t2 = time.perf_counter()
        agent_s += t1 - t0
        env_s += t2 - t1
        total += reward
        steps += 1
        if terminated or truncated:
            break
    wall = time.perf_counter() - t_start - record_s
    schedule = info["schedule"]
    out = metrics.summary(schedule, ClusterSpec(nodes=int(spec.nodes)))
    out.update({"return": float(total), "decisions": steps, "wall_s": wall, "agent_s": agent_s,
                "encoder_s": clock.encoder, "env_s": env_s - clock.encoder, "contested": len(top),
                "top_prob_median": float(np.median(top)) if top else float("nan"),
                "head_share": head / len(top) if top else float("nan")})
    if keep_schedule:
        out["schedule"] = schedule
    if recorder is not None:
        out["recorder"] = recorder
    return out


def load_policy(path):
    from schedrl.agents.reinforce import ReinforcePolicy

    return ReinforcePolicy.load(path)


# --------------------------------------------------------------------------- training
def test_like_validation(train: pd.DataFrame, val: pd.DataFrame, test: pd.DataFrame, nodes: int):
    """Issue 37 item 3: a validation block of the validation part's size loaded like the test part,
    chosen by the core's ``load_matched_block`` among the training and validation parts' jobs (the
    jobs before the test part, in order). Blocks inside the training
    part overlap training episodes: only their load is new to the agent, not their jobs.
    Returns the block (submit times rebased to 0) and what was measured (also FCFS+EASY's
    utilisation of the block, the validation part and the test part)."""
    from schedrl import metrics
    from schedrl.sim import ClusterSpec, simulate

    n = len(val)
    before = pd.concat([train, val], ignore_index=True)
    before.attrs = dict(val.attrs)
    target = offered_load(test, nodes)
    try:
        first, best = load_matched_block(before, n, nodes, target)
    except ConfigError as e:
        raise ConfigError(f"sem agents: validation test_like: {e}") from None
    block = before.iloc[first:best].reset_index(drop=True)
    block.attrs = dict(val.attrs)
    block["submit_time"] = block["submit_time"] - block["submit_time"].min()
    cluster = ClusterSpec(nodes=int(nodes))

    def util(t):
        return float(metrics.summary(simulate(t, cluster, policy="fcfs", backfill="easy"), cluster)["utilization"])

    info = {"validation": "test_like", "jobs": n, "rows_before_test": [best - n, best],
            "in_training_part": best - n < len(train),
            "offered_load": offered_load(block, nodes), "offered_load_test": target,
            "offered_load_split": offered_load(val, nodes), "fcfs_utilization": util(block),
            "fcfs_utilization_test": util(test), "fcfs_utilization_split": util(val)}
    print(f"validation test_like: jobs {best - n}-{best} of the {len(before)} before the test part; offered load "
          f"{info['offered_load']:.3f} (test {target:.3f}, validation split {info['offered_load_split']:.3f}); "
          f"FCFS+EASY utilisation {info['fcfs_utilization']:.3f} (test {info['fcfs_utilization_test']:.3f}, "
          f"validation split {info['fcfs_utilization_split']:.3f})")
    return block, info


def sampled_play(policy, test: pd.DataFrame, spec: AgentSpec, scale: float, play_seeds,
                 jobs_path=None) -> pd.DataFrame:
    """Test play as DRAS's code plays: one sampled pass per play seed (``play_rng``); with
    ``jobs_path`` each pass's per-job wait and slowdown too (``play_seed`` column), for intervals
    that resample the test jobs as well as the passes."""
    from schedrl import metrics

    rows, jobs = [], []
    for p in play_seeds:
        m = play_greedy(policy, test, spec, scale, rng=play_rng(spec, int(p)), keep_schedule=jobs_path is not None)
        rows.append({"play_seed": int(p), **{k: m.get(k) for k in SAMPLED_METRICS}})
        if jobs_path is not None:
            sched = m["schedule"]
            jobs.append(pd.DataFrame({"play_seed": int(p), "job_id": sched["job_id"].to_numpy(),
                                      "wait": metrics.wait_times(sched), "slowdown": metrics.slowdowns(sched)}))
    if jobs_path is not None:
        write_csv(jobs_path, pd.concat(jobs, ignore_index=True).sort_values(["play_seed", "job_id"])
                  if jobs else pd.DataFrame(columns=["play_seed", "job_id", "wait", "slowdown"]))
    return pd.DataFrame(rows, columns=["play_seed", *SAMPLED_METRICS])


#: the metrics kept per sampled test pass (``test_sampled.csv``)
SAMPLED_METRICS = ("return", "utilization", "mean_wait", "max_wait", "mean_slowdown", "decisions",
                   "top_prob_median", "head_share", "wall_s")


def training_episodes(manifest: dict, train_jobs: int, episode_jobs: int | None = None) -> tuple[int, int]:
    """(jobs per training episode, episodes of the whole training part): the split's (its manifest),
    or whole blocks of ``episode_jobs`` jobs over the same ``train_jobs`` training jobs."""
    if episode_jobs is None:
        return int(manifest["episode_jobs"]), int(manifest["episodes"])
    if isinstance(episode_jobs, bool) or not isinstance(episode_jobs, (int, np.integer)) or not 1 <= episode_jobs <= train_jobs:
        raise ConfigError(f"sem agents: episode_jobs must be a whole number from 1 to the {train_jobs} training jobs, "
                          f"got {episode_jobs!r}")
    return int(episode_jobs), int(train_jobs) // int(episode_jobs)


def train_agent(split_dir, spec: AgentSpec, out_dir, *, episodes: int | None = None, play_seeds=(),
                validation: str = "split", episode_jobs: int | None = None) -> dict:
    """Train, validate after every episode and test one agent; writes into ``out_dir``:
    ``run/`` (the trainer's run folder), ``validation.csv`` (one row per episode), ``test.json``
    (metrics and inference time on the test part), ``test_sampled.csv`` (one sampled test pass
    per ``play_seeds`` entry; no rows without play seeds; ``test_jobs_sampled.csv`` their per-job
    waits and slowdowns) and ``timing.json`` (training time by part).
    ``validation``: "split" (the split's validation part) or "test_like" (``test_like_validation``).
    ``episode_jobs`` (beyond the paper; ``sem.agents.networks.<trace>.episode_jobs``, e.g. a tuned
    recipe's): training blocks of this many jobs in place of the split's, over the same training part
    (``training_episodes``: its whole blocks); None keeps the split's.

    A rerun resumes: per-episode rows and times are kept in ``progress/`` (Snakemake deletes a
    rule's declared outputs before rerunning it, so progress cannot live there). Only episodes
    with both a validation row and a checkpoint count as done (the newest checkpoint's episode, if
    killed before its validation, is validated from it); a run whose checkpoints are further ahead
    of its rows (their snapshots are gone) starts again from scratch rather than validating the
    final model in place of the lost ones. A killed run rerun ends with the files of an
    uninterrupted one (its times aside: ``tests/test_exact_resume_own_loops.py``)."""
    import torch

    from schedrl.agents.reinforce import train_reinforce
    from schedrl.workloads.swf import read_swf

    split_dir, out_dir = Path(split_dir), Path(out_dir)
    manifest = read_json(split_dir / "split.json")
    train, val, test = (read_swf(split_dir / f"{part}.swf") for part in ("train", "val", "test"))
    if validation not in VALIDATIONS:
        raise ConfigError(f"sem agents: validation must be one of {', '.join(VALIDATIONS)}, got '{validation}'")
    if validation == "test_like":
        val, val_info = test_like_validation(train, val, test, spec.nodes)
    else:
        val_info = {"validation": "split", "jobs": len(val), "offered_load": offered_load(val, spec.nodes),
                    "offered_load_test": offered_load(test, spec.nodes)}
    episode_jobs, all_episodes = training_episodes(manifest, len(train), episode_jobs)
    n_episodes = all_episodes if episodes is None else int(episodes)
    if n_episodes < 1 or n_episodes * episode_jobs > len(train):
        raise ConfigError(f"sem agents: {n_episodes} episodes of {episode_jobs} jobs need more than the "
                          f"{len(train)} training jobs")
    torch.set_num_threads(max(1, int(spec.threads)))
    scale = time_scale_of(train)
    cfg = spec.reinforce_config()
    run_dir, progress = out_dir / "run", out_dir / "progress"
    clock = Clock()
    cursor = {"episode": 0}
    record = {"algo": "deeprm_pg", "paper": "sem", "trace": spec.trace, "encoder": spec.encoder,
              "nodes": spec.nodes, "k": spec.k, "reward": spec.reward, "episode_jobs": episode_jobs,
              **({"reward_kwargs": dict(spec.reward_kwargs)} if spec.reward_kwargs else {}),
              "time_scale": scale, "split": manifest.get("rows"),
              **({"process": spec.process} if spec.process != "hold" else {}),  # hold: old runs keep their record
              **({"validation": val_info["rows_before_test"]} if validation == "test_like" else {}),
              "conv": "linear"}  # pair_conv's convolution without a ReLU since 2026-11-25: older runs retrain
    rows, timing = _resume(run_dir, progress, {**record, "hyperparams": spec.reinforce_config().record(),
                                               "seed": spec.seed, "priority_queues": list(spec.priority_queues),
                                               "stream": spec.stream()})
    done = {int(r["episode"]) for r in rows}
    budget_eps = budget_episodes(n_episodes)
    budget_rows = pd.read_csv(progress / "budgets.csv").to_dict("records") \
        if rows and (progress / "budgets.csv").exists() else []
    budget_rows = [r for r in budget_rows if int(r["episode"]) in done]
    for episode in range(1, n_episodes + 1):
        if episode in done:
            continue
        cursor["episode"] = episode - 1
        env_before, enc_before = clock.env, clock.encoder
        t0 = time.perf_counter()
        result = train_reinforce(lambda: _episode_env(train, spec, scale, clock, cursor, episode_jobs), cfg,
                                 episode, spec.seed, run_dir, config=record, examples=1, checkpoint_every=1,
                                 threads=spec.threads, stream=spec.stream())
        timing["train_wall_s"] += time.perf_counter() - t0
        timing["trainer_s"] += result.wall_time_s
        timing["env_s"] += (clock.env - env_before) - (clock.encoder - enc_before)
        timing["encoder_s"] += clock.encoder - enc_before
        timing["steps"] = int(result.steps)  # the run's, also when its last episode had been trained already
        t0 = time.perf_counter()
        policy = load_policy(run_dir / "model.zip")
        v = play_greedy(policy, val, spec, scale)
        timing["validation_s"] += time.perf_counter() - t0
        rows = [r for r in rows if int(r["episode"]) != episode]
        rows.append({"episode": episode, **{k: v[k] for k in ("return", "utilization", "mean_wait", "max_wait",
                                                               "mean_slowdown", "decisions", "top_prob_median",
                                                               "head_share")}})
        if episode in budget_eps.values() and episode < n_episodes:
            # the checkpoint at a share of training, under the final test's protocol (the last
            # one is the final test itself); its CPU time is counted apart (issue 24: <= 15%)
            t0, c0 = time.perf_counter(), time.process_time()
            b = play_greedy(policy, test, spec, scale)
            timing["budget_eval_s"] += time.perf_counter() - t0
            timing["budget_eval_cpu_s"] += time.process_time() - c0
            budget_rows = [r for r in budget_rows if int(r["episode"]) != episode]
            budget_rows += [_budget_row(f, e, episode_jobs, b) for f, e in budget_eps.items() if e == episode]
            write_csv(progress / "budgets.csv", pd.DataFrame(budget_rows).sort_values(["episode", "fraction"]))
        # validation.csv marks the episode done, so it is written after its budget row: a run killed
        # between the two plays the budget checkpoint again on resume instead of losing its row
        write_csv(progress / "validation.csv", pd.DataFrame(rows).sort_values("episode"))
        write_json(progress / "timing.json", timing)
    write_csv(out_dir / "validation.csv", pd.DataFrame(rows).sort_values("episode"))
    from schedrl.agents.networks import layer_widths, parameter_count
    from schedrl.workloads.traces import is_stand_in

    policy = load_policy(run_dir / "model.zip")
    test_metrics = play_greedy(policy, test, spec, scale, keep_schedule=True, record=True)
    _write_test_jobs(out_dir / "test_jobs.csv", test_metrics.pop("schedule"))
    write_agent_fingerprint(out_dir / "fingerprint.json", test_metrics.pop("recorder"), policy, spec, "trained")
    c0 = time.process_time()
    sampled = sampled_play(policy, test, spec, scale, play_seeds, out_dir / "test_jobs_sampled.csv")
    write_csv(out_dir / "test_sampled.csv", sampled)
    sampled_cpu = time.process_time() - c0
    budget_rows = [r for r in budget_rows if float(r["fraction"]) < 1.0]
    budget_rows += [_budget_row(f, e, episode_jobs, test_metrics) for f, e in budget_eps.items() if e == n_episodes]
    write_csv(out_dir / "budgets.csv", pd.DataFrame(budget_rows).sort_values(["fraction"]))
    write_json(out_dir / "test.json", {**test_metrics, "trace": spec.trace, "encoder": spec.encoder,
                                       "seed": spec.seed, "agent": "trained",
                                       "reward": spec.reward, "reward_kwargs": dict(spec.reward_kwargs),
                                       "jobs": len(test), "stand_in": bool(is_stand_in(test)),
                                       "source": _source(test), "layer_widths": layer_widths(policy.net),
                                       "parameters": parameter_count(policy.net), "process": spec.process,
                                       "play_seeds": [int(p) for p in play_seeds], "sampled_cpu_s": sampled_cpu,
                                       "validation": val_info})
    out = _timing_record(timing, spec, n_episodes, episode_jobs)
    write_json(out_dir / "timing.json", out)
    return out


# --------------------------------------------------------------------------- fingerprints, references
#: the no-learning references played beside every trained agent (issue 41)
REFERENCES = ("random", "untrained")


def agent_label(spec: AgentSpec, kind: str = "trained") -> str:
    """A readable name, e.g. "SEM theta seed 0" or "DRAS datastar random seed 1"."""
    return " ".join(x for x in (spec.encoder.upper(), spec.trace, "" if kind == "trained" else kind,
                                f"seed {spec.seed}") if x)


def write_agent_fingerprint(path, recorder, policy, spec: AgentSpec, kind: str) -> dict:
    """``fingerprint.json`` of the test episode's decisions (the logits' measures for networks)."""
    from schedrl.experiments.fingerprint import fingerprint, reinforce_view, write_fingerprint

    view = None if hasattr(policy, "choose") else reinforce_view(policy)
    fp = fingerprint(recorder.decisions, view)
    write_fingerprint(path, fp, agent=agent_label(spec, kind), kind=kind, trace=spec.trace, encoder=spec.encoder,
                      seed=int(spec.seed), episodes=1, split="test", play="greedy")
    return fp


def untrained_policy(spec: AgentSpec, table: pd.DataFrame, time_scale: float):
    """The network training starts from: ``train_reinforce`` seeds torch with the run's seed, then
    builds the policy; the same here, without a training step."""
    import torch

    from schedrl.agents.reinforce import make_policy

    env = _make_env(table, spec, time_scale, None)
    torch.manual_seed(int(spec.seed))
    return make_policy(env, spec.reinforce_config())


def reference_agent(split_dir, spec: AgentSpec, kind: str, out_dir) -> dict:
    """Play a no-learning reference (``random``: uniform among the valid slots; ``untrained``: the
    initial network of a run with ``spec.seed``) on the test part under the trained agent's
    protocol (greedy, one pass, same jobs and time scale); writes ``test.json``,
    ``test_jobs.csv`` and ``fingerprint.json`` into ``out_dir`` as ``train_agent`` does."""
    import torch

    from schedrl.workloads.swf import read_swf
    from schedrl.workloads.traces import is_stand_in

    if kind not in REFERENCES:
        raise ConfigError(f"sem reference: agent must be one of {', '.join(REFERENCES)}, got '{kind}'")
    torch.set_num_threads(max(1, int(spec.threads)))
    split_dir, out_dir = Path(split_dir), Path(out_dir)
    train, test = read_swf(split_dir / "train.swf"), read_swf(split_dir / "test.swf")
    scale = time_scale_of(train)
    c0 = time.process_time()
    policy = RandomValidPolicy(spec.seed, spec.encoder) if kind == "random" else untrained_policy(spec, train, scale)
    m = play_greedy(policy, test, spec, scale, keep_schedule=True, record=True)
    _write_test_jobs(out_dir / "test_jobs.csv", m.pop("schedule"))
    write_agent_fingerprint(out_dir / "fingerprint.json", m.pop("recorder"), policy, spec, kind)
    out = {**m, "trace": spec.trace, "encoder": spec.encoder, "seed": spec.seed, "agent": kind,
           "reward": spec.reward, "reward_kwargs": dict(spec.reward_kwargs), "jobs": len(test),
           "stand_in": bool(is_stand_in(test)), "source": _source(test), "cpu_s": time.process_time() - c0}
    write_json(out_dir / "test.json", out)
    return out


def _resume(run_dir: Path, progress: Path, config: dict) -> tuple[list[dict], dict]:
    """Validation rows and summed times of the episodes already done (see ``train_agent``);
    a different ``config`` (trace, encoder, hyperparameters, seed, split) starts afresh."""
    import json
    import shutil

    from schedrl.agents.reinforce import checkpoints

    timing = {"train_wall_s": 0.0, "trainer_s": 0.0, "env_s": 0.0, "encoder_s": 0.0, "validation_s": 0.0,
              "budget_eval_s": 0.0, "budget_eval_cpu_s": 0.0, "steps": 0}
    text = json.dumps(config, sort_keys=True, default=str)
    if (progress / "config.json").exists() and (progress / "config.json").read_text() != text:
        print(f"{run_dir}: configuration changed; training again from episode 1")
        shutil.rmtree(run_dir, ignore_errors=True)
        shutil.rmtree(progress)
    progress.mkdir(parents=True, exist_ok=True)
    (progress / "config.json").write_text(text)
    rows = pd.read_csv(progress / "validation.csv").to_dict("records") \
        if (progress / "validation.csv").exists() and (progress / "timing.json").exists() else []
    trained = max((n for n, _ in checkpoints(run_dir)), default=0) if run_dir.exists() else 0
    rows = [r for r in rows if int(r["episode"]) <= trained]  # a row without its checkpoint is redone
    validated = {int(r["episode"]) for r in rows}
    # the newest episode's row may be missing (killed between its checkpoint and its validation):
    # that snapshot is still there, and the trainer resumes from it without training (same model)
    if trained and validated not in (set(range(1, trained + 1)), set(range(1, trained))):
        print(f"{run_dir}: trained to episode {trained} but validation rows are missing; training again "
              "from episode 1 (the lost snapshots cannot be validated)")
        shutil.rmtree(run_dir)
        shutil.rmtree(progress, ignore_errors=True)
        return [], timing
    if rows:
        timing.update({k: v for k, v in read_json(progress / "timing.json").items() if k in timing})
    return rows, timing


def budget_episodes(n_episodes: int, fractions=None) -> dict[float, int]:
    """{fraction: episode}: the training episode after which the checkpoint for each share of
    training is taken (``ceil(f * n)``, at least 1; the last is the final model)."""
    from schedrl.protocol import BUDGET_FRACTIONS

    fractions = BUDGET_FRACTIONS if fractions is None else fractions
    return {float(f): max(1, min(n_episodes, int(np.ceil(f * n_episodes - 1e-9)))) for f in fractions}


#: the metrics kept per budget checkpoint (the final test's, played on the same test jobs)
BUDGET_METRICS = ("return", "utilization", "mean_wait", "max_wait", "mean_slowdown", "decisions",
                  "top_prob_median", "head_share")


def _budget_row(fraction: float, episode: int, episode_jobs: int, m: dict) -> dict:
    return {"fraction": fraction, "episode": episode, "train_jobs": episode * episode_jobs,
            **{k: m.get(k) for k in BUDGET_METRICS}}


def _write_test_jobs(path, schedule: pd.DataFrame) -> None:
    """Per test job: wait and slowdown (the paired bootstrap of Fig. 9's claims reads them)."""
    from schedrl import metrics

    frame = pd.DataFrame({"job_id": schedule["job_id"].to_numpy() if "job_id" in schedule else np.arange(len(schedule)),
                          "wait": metrics.wait_times(schedule), "slowdown": metrics.slowdowns(schedule)})
    write_csv(path, frame.sort_values("job_id").reset_index(drop=True))


def _timing_record(t: dict, spec: AgentSpec, episodes: int, episode_jobs: int) -> dict:
    import platform

    agent = max(t["trainer_s"] - t["env_s"] - t["encoder_s"], 0.0)
    return {**t, "agent_s": agent, "io_s": max(t["train_wall_s"] - t["trainer_s"], 0.0), "episodes": episodes,
            "episode_jobs": episode_jobs, "train_jobs": episodes * episode_jobs, "trace": spec.trace,
            "encoder": spec.encoder, "threads": spec.threads, "machine": platform.processor() or platform.machine(),
            "steps_per_s": t["steps"] / t["trainer_s"] if t["trainer_s"] > 0 else None}


def _source(table: pd.DataFrame) -> str:
    notes = (table.attrs.get("header") or {}).get("Note", "")
    return str(notes)


def heuristics(split_dir, nodes: int, out) -> pd.DataFrame:
    """FCFS + EASY and SJF + EASY on the test part: one row of metrics per policy."""
    from schedrl import metrics
    from schedrl.sim import ClusterSpec, simulate
    from schedrl.workloads.swf import read_swf

    test = read_swf(Path(split_dir) / "test.swf")
    cluster = ClusterSpec(nodes=int(nodes))
    rows = []
    for policy in HEURISTICS:
        t0 = time.perf_counter()
        schedule = simulate(test, cluster, policy=policy, backfill="easy")
        rows.append({"method": f"{policy.upper()}+EASY", **metrics.summary(schedule, cluster),
                     "wall_s": time.perf_counter() - t0})
    frame = pd.DataFrame(rows)
    write_csv(out, frame)
    return frame


# --------------------------------------------------------------------------- Fig. 11
def scaled_jobs(table: pd.DataFrame, factor: int) -> pd.DataFrame:
    """The same jobs on a machine ``factor`` times larger: every size times ``factor``."""
    out = table.copy()
    out.attrs = dict(table.attrs)
    for col in ("req_procs", "alloc_procs"):
        if col in out.columns:
            out[col] = np.where(out[col] > 0, out[col] * factor, out[col])
    header = dict(out.attrs.get("header") or {})
    for key in ("MaxProcs", "MaxNodes"):
        header.pop(key, None)
    out.attrs["header"] = header
    return out


def scaling_run(split_dir, spec: AgentSpec, factor: int, jobs: int, out_dir) -> dict:
    """Train one episode of ``jobs`` jobs and test on the next ``jobs`` jobs with every size and
    the machine scaled by ``factor``; the times by part."""
    import torch

    from schedrl.agents.reinforce import train_reinforce
    from schedrl.encoders.hpc import HPCEncoderParams, dras_size, sem_size
    from schedrl.workloads.swf import read_swf

    if factor < 1 or jobs < 1:
        raise ConfigError("sem scaling: factor and jobs must be positive")
    train = read_swf(Path(split_dir) / "train.swf")
    if 2 * jobs > len(train):
        raise ConfigError(f"sem scaling: {jobs} + {jobs} jobs needed, the training part has {len(train)}")
    torch.set_num_threads(max(1, int(spec.threads)))
    spec = AgentSpec(**{**spec.__dict__, "nodes": spec.nodes * factor})
    first = scaled_jobs(train.iloc[:jobs].reset_index(drop=True), factor)
    second = scaled_jobs(train.iloc[jobs: 2 * jobs].reset_index(drop=True), factor)
    scale = time_scale_of(train)
    out_dir = Path(out_dir)
    run_dir = out_dir / "run"
    import shutil

    shutil.rmtree(run_dir, ignore_errors=True)  # a timing is measured afresh, never resumed
    clock, cursor = Clock(), {"episode": 0}
    t0 = time.perf_counter()
    result = train_reinforce(lambda: _episode_env(first, spec, scale, clock, cursor, jobs), spec.timing_config(),
                             1, spec.seed, run_dir, config={"paper": "sem", "fig": 11, "factor": factor,
                                                            "encoder": spec.encoder, "jobs": jobs},
                             examples=1, threads=spec.threads, on_mismatch="restart")
    wall = time.perf_counter() - t0
    policy = load_policy(run_dir / "model.zip")
    play_greedy(policy, second.iloc[: min(jobs, 50)], spec, scale)  # warm-up: first-call costs are not inference
    test = play_greedy(policy, second, spec, scale)
    p = HPCEncoderParams(nodes=spec.nodes, window=spec.window, k=spec.k)
    from schedrl.agents.networks import parameter_count

    out = {"encoder": spec.encoder, "factor": factor, "nodes": spec.nodes, "jobs": jobs,
           "inputs": (sem_size if spec.encoder == "sem" else dras_size)(p),
           "parameters": parameter_count(policy.net), "train_s": result.wall_time_s, "train_wall_s": wall,
           "train_env_s": clock.env - clock.encoder, "train_encoder_s": clock.encoder,
           "train_agent_s": max(result.wall_time_s - clock.env, 0.0), "train_steps": result.steps_trained,
           "inference_s": test["wall_s"], "inference_agent_s": test["agent_s"],
           "inference_encoder_s": test["encoder_s"], "inference_env_s": test["env_s"],
           "inference_decisions": test["decisions"], "threads": spec.threads, "skipped": bool(result.skipped)}
    write_json(out_dir / "scaling.json", out)
    shutil.rmtree(run_dir / "checkpoints", ignore_errors=True)  # up to GBs for DRAS; only the times are kept
    (run_dir / "model.zip").unlink(missing_ok=True)
    return out


# --------------------------------------------------------------------------- convergence rule
def convergence_episode(values, tolerance: float = 0.05, window: int = 10) -> int | None:
    """The first episode (1-based) from which every value stays within ``tolerance`` x the
    curve's range (max - min) of the plateau, the mean of the last ``window`` values; the last
    episode when even that one lies outside (the curve never settles); None for an empty curve.
    The band is relative to the range, not to the plateau's size: returns carry offsets (Theta's
    reward is positive at every decision), so a band of 5% of the plateau can hold the whole curve."""
    v = np.asarray(values, dtype=float)
    if len(v) == 0:
        return None
    if tolerance < 0 or window < 1:
        raise ConfigError("convergence rule: tolerance >= 0 and window >= 1")
    plateau = float(np.mean(v[-min(window, len(v)):]))
    band = tolerance * float(v.max() - v.min())
    outside = np.flatnonzero(np.abs(v - plateau) > band + 1e-12)
    if len(outside) == 0:
        return 1
    return min(int(outside[-1]) + 2, len(v))  # the episode after the last one outside the band


# --------------------------------------------------------------------------- Fig. 6
def denser(table: pd.DataFrame, density: float) -> pd.DataFrame:
    """The same jobs arriving ``density`` times as fast (inter-arrival times divided by it), so
    that the queue holds enough jobs to fill a window (the paper 'adjusts the job density')."""
    if density <= 0:
        raise ConfigError("sem window study: density must be positive")
    out = table.copy()
    out.attrs = dict(table.attrs)
    submit = pd.to_numeric(out["submit_time"], errors="coerce").to_numpy(dtype=np.float64)
    t0 = float(np.nanmin(submit)) if len(submit) else 0.0
    out["submit_time"] = np.floor(t0 + (submit - t0) / float(density))
    return out


def window_run(split_dir, spec: AgentSpec, window: int, jobs: int, density: float, out_dir) -> dict:
    """Fig. 6's point: the training time of one episode of ``jobs`` jobs (the training part's
    first, ``density`` times denser) with a window of ``window`` jobs."""
    import shutil

    import torch

    from schedrl.agents.networks import parameter_count
    from schedrl.agents.reinforce import train_reinforce
    from schedrl.encoders.hpc import HPCEncoderParams, dras_size, sem_size
    from schedrl.workloads.swf import read_swf

    if window < 1 or jobs < 1:
        raise ConfigError("sem window study: window and jobs must be positive")
    train = read_swf(Path(split_dir) / "train.swf")
    if jobs > len(train):
        raise ConfigError(f"sem window study: {jobs} jobs needed, the training part has {len(train)}")
    torch.set_num_threads(max(1, int(spec.threads)))
    spec = AgentSpec(**{**spec.__dict__, "window": int(window)})
    first = denser(train.iloc[:jobs].reset_index(drop=True), density)
    scale = time_scale_of(train)
    out_dir = Path(out_dir)
    run_dir = out_dir / "run"
    shutil.rmtree(run_dir, ignore_errors=True)  # a timing is measured afresh, never resumed
    clock, cursor = Clock(), {"episode": 0}
    result = train_reinforce(lambda: _episode_env(first, spec, scale, clock, cursor, jobs), spec.timing_config(),
                             1, spec.seed, run_dir, config={"paper": "sem", "fig": 6, "window": window,
                                                            "encoder": spec.encoder, "jobs": jobs, "density": density},
                             examples=1, threads=spec.threads, on_mismatch="restart")
    policy = load_policy(run_dir / "model.zip")
    p = HPCEncoderParams(nodes=spec.nodes, window=spec.window, k=spec.k)
    out = {"encoder": spec.encoder, "window": int(window), "nodes": spec.nodes, "jobs": jobs, "density": density,
           "inputs": (sem_size if spec.encoder == "sem" else dras_size)(p),
           "parameters": parameter_count(policy.net), "train_s": result.wall_time_s,
           "train_steps": result.steps_trained, "threads": spec.threads}
    write_json(out_dir / "window.json", out)
    shutil.rmtree(run_dir, ignore_errors=True)  # only the time is kept
    return out
