"""How MRSch's methods play and what the claims and figures read: every method on a workload's test
split, or in-sample on the real job sets its agents trained on (``evaluate_workload``), the DFP
agents at shares of their training (``evaluate_budgets``), and the tables read back (``all_metrics``,
``all_goals``, ``kiviat_scores``, ``improvement``).

Baselines, all with EASY backfilling over every resource: FCFS (list scheduling), the paper's GA
(BBSched: population 21, 50 generations at w = 10; ``exhaustive_max = 0`` forces it for every
window) with the exact exhaustive Pareto search kept as a check (``exhaustive``), and scalar RL
(trained by ``training``).

Given a ``fingerprints.Record``, ``evaluate_frame`` and ``baseline_rows`` also record the trained
agents' decisions and play each agent's seat with the no-learning references (random valid picks,
the untrained network). That play stays here: the evaluation calls it, and ``references`` (the
fingerprint tables and the claims on the references) imports this module, not the other way.
``training`` imports this module too (model selection plays as the budget evaluation does).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.papers.mrsch.layout import (
    BUDGET_SNAPSHOTS,
    REFERENCE_HEURISTICS,
    RESOURCES,
    ROOT,
    WORKLOAD_DIR,
    _extra,
    agent_seed,
    agent_states,
    budget_model,
    budget_sets,
    cluster_of,
    env_kwargs,
    eval_dir,
    eval_model,
    group_of,
    group_workloads,
    has_scalar,
    jobsets,
    make_env,
    process,
    scalar_dir,
    seeds,
    select_on_validation,
    test_jobs,
)

# ---------------------------------------------------------------------------------------------
# evaluation on the test split

def metrics_row(schedule: pd.DataFrame, cluster, method: str, workload: str, **extra) -> dict:
    from schedrl import metrics

    row = {"workload": workload, "method": method, "jobs": len(schedule),
           "node_util": metrics.utilization(schedule, cluster.nodes),
           "bb_util": metrics.bb_utilization(schedule, cluster.bb_units),
           "power_util": metrics.power_utilization(schedule, cluster) if cluster.power_budget else np.nan,
           "mean_wait_h": metrics.mean_wait(schedule) / 3600.0, "mean_slowdown": metrics.mean_slowdown(schedule)}
    row.update(extra)
    return row


def _dfp_input(obs, info) -> tuple:
    """What ``dfp_view`` scores a recorded decision with: (observation, measurements, goal)."""
    return (np.asarray(obs, dtype=np.float32).reshape(-1).copy(), np.asarray(info["utilization"], dtype=np.float32),
            np.asarray(info["demand_share"], dtype=np.float32))


def play_picker(pick, env, frame: pd.DataFrame, recorder=None) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Play ``frame`` with ``pick(obs, info, env) -> action`` at every decision; returns the schedule,
    the goal trace (clock, goal per resource) and the seconds each decision took (choosing and the
    env's step). ``recorder`` (a ``FingerprintRecorder``; untimed) records every decision."""
    obs, info = env.reset(options={"jobs": frame})
    if recorder is not None:
        recorder.env = env
    goals, times, done = [], [], False
    while not done:
        t0 = time.perf_counter()
        a = int(pick(obs, info, env))
        t1 = time.perf_counter()
        if recorder is not None:
            if getattr(recorder, "dfp", False):
                recorder.policy_input = lambda o, _env, i=info: _dfp_input(o, i)
            recorder.record(obs, a)
        goals.append([info["clock"], *np.asarray(info["demand_share"], dtype=float)])
        t2 = time.perf_counter()
        obs, _, term, trunc, info = env.step(a)
        times.append(time.perf_counter() - t2 + t1 - t0)
        done = term or trunc
    return info["schedule"], pd.DataFrame(goals), np.asarray(times)


def play_dfp(agent, env, frame: pd.DataFrame, recorder=None) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Greedy play with the dynamic goal; returns the schedule, the goal trace and the seconds each
    decision took (the agent's forward pass and the env's step, i.e. choosing and starting a job)."""
    def pick(obs, info, _env):
        return agent.act(obs[None], info["utilization"], info["demand_share"], info["action_mask"][None])[0]

    return play_picker(pick, env, frame, recorder)


def play_policy(policy, env, frame: pd.DataFrame, recorder=None) -> tuple[pd.DataFrame, np.ndarray]:
    import torch

    torch.manual_seed(0)

    def pick(obs, info, _env):
        a, _ = policy.predict(obs, deterministic=True, action_masks=info["action_mask"])
        return np.asarray(a).reshape(-1)[0]

    sched, _, times = play_picker(pick, env, frame, recorder)
    return sched, times


def insample_workloads(spec: dict, group: str) -> list[str]:
    """The group's workloads that gave the agents at least one real training job set (real set i
    comes from workload i mod the group's size; a small spec leaves some workloads without one)."""
    names = group_workloads(spec, group)
    return [w for j, w in enumerate(names) if j < int(spec["jobsets"]["real"])]


def trained_real_sets(spec: dict, workload: str, base=WORKLOAD_DIR) -> list[pd.DataFrame]:
    """The real job sets of ``workload`` that its group's agents trained on (the in-sample protocol)."""
    if workload not in insample_workloads(spec, group_of(workload)):
        raise ConfigError(f"workload {workload} gave no real training job set (mrsch.jobsets.real is "
                          f"{spec['jobsets']['real']}): nothing to evaluate in-sample")
    names = group_workloads(spec, group_of(workload))
    real = jobsets(spec, group_of(workload), base)["real"]
    return [f for i, f in enumerate(real) if names[i % len(names)] == workload]


def evaluate_workload(spec: dict, workload: str, root=ROOT, base=WORKLOAD_DIR, threads: int = 1,
                      split: str = "test", seed: int | None = None, record=None):
    """Every method on ``workload``'s test split, or (``split='train'``, the public MRSch code's
    protocol: it trains and tests on one trace) on the real job sets its agents trained on, each set
    simulated alone and the metrics averaged; returns (metrics, goal trace of MRSch, per-job waits
    and slowdowns of every method, ``job_rows``; in-sample with a ``jobset`` column). With an extra
    ``seed``, MRSch (MLP) of that seed alone. ``record`` (a ``fingerprints.Record``): fingerprint
    the agents and play the no-learning references beside them."""
    import torch

    torch.set_num_threads(max(1, threads))
    if split == "test":
        return evaluate_frame(spec, test_jobs(spec, workload, base), workload, root, seed, record)
    parts = []
    for k, f in enumerate(trained_real_sets(spec, workload, base)):
        if record is not None:
            record.part = k
        parts.append(evaluate_frame(spec, f.reset_index(drop=True), workload, root, seed, record))
    jobs = pd.concat([j.assign(jobset=k) for k, (_, _, j) in enumerate(parts)], ignore_index=True)
    return pool_metrics([m for m, _, _ in parts]), pd.concat([g for _, g, _ in parts], ignore_index=True), jobs


def pool_metrics(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Per workload and method, the metrics of several job sets in one row: counts and seconds
    summed, worst-case times as the maximum, utilisations, waits and slowdowns as the mean over
    sets; ``jobsets`` says how many were pooled."""
    metrics = pd.concat(frames, ignore_index=True)
    numeric = metrics.select_dtypes("number").columns
    def total(v):  # a method without decisions (FCFS) keeps NaN, not 0
        return v.sum(min_count=1)

    how = {c: total if c in ("jobs", "decisions", "instances", "wall_s") else "max" if c.endswith("_max") else "mean"
           for c in numeric}
    pooled = metrics.groupby(["workload", "method"], sort=False).agg(how).reset_index()
    pooled["jobsets"] = len(frames)
    return pooled


def evaluate_frame(spec: dict, frame: pd.DataFrame, workload: str, root=ROOT, seed: int | None = None, record=None):
    """Every method on the jobs of ``frame``; returns (metrics, goal trace of MRSch, per-job rows).
    With an extra ``seed``: MRSch (MLP) of that seed alone (the baselines do not depend on it).
    With ``record`` (``fingerprints.Record``), every trained agent's decisions are recorded and its
    seat is played again by the random and the untrained references (``fingerprints``)."""
    from schedrl.agents.dfp import DFPAgent
    from schedrl.papers.mrsch import fingerprints as fps

    group = group_of(workload)
    extra = _extra(spec, seed)
    seed_of_agent = agent_seed(spec) if extra is None else extra
    w = int(spec["window"])
    rows, per_job = ([], []) if extra is not None else baseline_rows(spec, frame, workload, root, record)
    goals = None
    agents = agent_states(spec, group, extra)
    for method, state in agents:
        agent = DFPAgent.load(eval_model(spec, root, group, state, extra))
        plays = [("", agent)]
        if record is not None:
            plays += [("random", None), ("untrained", fps.untrained_dfp(agent, seed_of_agent))]
        for reference, player in plays:
            rec = None
            if record is not None:
                view = None if player is None else (lambda a=player: fps.fpm.dfp_view(a))
                rec = record.recorder(fps.label_of(method, reference), view, _fp_meta(
                    method, reference, workload, group, state, seed_of_agent), dfp=player is not None)
                record.jobs[fps.label_of(method, reference)] += len(frame)
            env = make_env(frame, w, **env_kwargs(spec))
            if player is None:
                sched, trace, times = play_picker(fps.random_picker([seed_of_agent, record.part, fps.AGENTS.index(method)]),
                                                  env, frame, rec)
            else:
                sched, trace, times = play_dfp(player, env, frame, rec)
            # a scheduling instance = the picks made at one clock time (the paper's "scheduling decision")
            instance = pd.Series(times).groupby(trace[0].to_numpy()).sum()
            row = metrics_row(sched, cluster_of(frame), method, workload, decisions=len(times), wall_s=times.sum(),
                              decision_ms_mean=1e3 * times.mean(), decision_ms_max=1e3 * times.max(),
                              instances=len(instance), instance_ms_max=1e3 * instance.max())
            trace.columns = ["clock", *(f"r_{r}" for r in RESOURCES[group])]
            trace.insert(0, "workload", workload)
            if reference:
                record.ref_metrics.append({**row, "reference": reference, "part": record.part})
                record.ref_jobs.append(job_rows(sched, method, workload).assign(reference=reference, jobset=record.part))
                if method == "mrsch":
                    record.ref_goals.append(trace.assign(method=method, reference=reference))
                continue
            rows.append(row)
            per_job.append(job_rows(sched, method, workload))
            if method == "mrsch":
                goals = trace
    return pd.DataFrame(rows), goals, pd.concat(per_job, ignore_index=True)


def _fp_meta(method: str, reference: str, workload: str, group: str, state: str, seed: int) -> dict:
    from schedrl.papers.mrsch.fingerprints import NAMES

    who = NAMES[method] + (f", {reference} reference" if reference else "")
    return {"agent": f"{who} {workload} seed {seed}", "method": method, "reference": reference, "workload": workload,
            "group": group, "state": state, "seed": seed}


def ga_plays(spec: dict) -> list[tuple[str, int, str]]:
    """(method, exhaustive_max, process) of the window optimiser's rows: the GA and the exhaustive
    check under the spec's process, and under ``every_event`` the GA holding its reservation
    (``ga_hold``, diagnostic)."""
    plays = [("ga", 0, process(spec)), ("exhaustive", 16, process(spec))]
    return plays + ([("ga_hold", 0, "hold")] if process(spec) != "hold" else [])


def baseline_rows(spec: dict, frame: pd.DataFrame, workload: str, root=ROOT,
                  record=None) -> tuple[list[dict], list[pd.DataFrame]]:
    """FCFS, SJF and smallest area first (each + EASY), the GA, the exhaustive check and scalar RL (when
    the spec trains it) on ``frame``: metrics rows and per-job rows (``record``: scalar RL
    fingerprinted, with its random and untrained references)."""
    from schedrl.agents.reinforce import ReinforcePolicy
    from schedrl.schedulers.ga import simulate_window_optimiser
    from schedrl.sim import simulate

    cluster = cluster_of(frame)
    group = group_of(workload)
    w, seed = int(spec["window"]), int(spec["seed"])
    rows, per_job = [], []
    t0 = time.perf_counter()
    # FCFS + EASY: the head picker's schedule under either process (tests/test_decision_process.py)
    sched = simulate(frame, cluster, policy="fcfs", backfill="easy")
    rows.append(metrics_row(sched, cluster, "fcfs", workload, wall_s=time.perf_counter() - t0))
    per_job.append(job_rows(sched, "fcfs", workload))
    for method in REFERENCE_HEURISTICS:  # beyond the paper: the normalised scale's stronger heuristics
        t0 = time.perf_counter()
        sched = simulate(frame, cluster, policy=method, backfill="easy")
        rows.append(metrics_row(sched, cluster, method, workload, wall_s=time.perf_counter() - t0))
        per_job.append(job_rows(sched, method, workload))
    for method, exhaustive_max, proc in ga_plays(spec):
        t0 = time.perf_counter()
        sched = simulate_window_optimiser(frame, cluster, window=w, seed=seed, exhaustive_max=exhaustive_max,
                                          process=proc)
        rows.append(metrics_row(sched, cluster, method, workload, wall_s=time.perf_counter() - t0,
                                decisions=sched.attrs["sim"]["optimiser_calls"]))
        per_job.append(job_rows(sched, method, workload))
    if not has_scalar(spec):
        return rows, per_job
    policy = ReinforcePolicy.load(scalar_dir(root, group) / "model.zip")
    plays = [("", policy)]
    if record is not None:
        from schedrl.papers.mrsch import fingerprints as fps

        plays += [("random", None), ("untrained", fps.untrained_reinforce(policy, seed))]
    for reference, player in plays:
        rec = None
        if record is not None:
            view = None if player is None else (lambda p=player: fps.fpm.reinforce_view(p))
            label = fps.label_of("scalar_rl", reference)
            rec = record.recorder(label, view, _fp_meta("scalar_rl", reference, workload, group, "mlp", seed), dfp=False)
            record.jobs[label] += len(frame)
        env = make_env(frame, w, **env_kwargs(spec))
        if player is None:
            sched, _, times = play_picker(fps.random_picker([seed, record.part, fps.AGENTS.index("scalar_rl")]),
                                          env, frame, rec)
        else:
            sched, times = play_policy(player, env, frame, rec)
        row = metrics_row(sched, cluster, "scalar_rl", workload, decisions=len(times), wall_s=times.sum(),
                          decision_ms_mean=1e3 * times.mean(), decision_ms_max=1e3 * times.max())
        if reference:
            record.ref_metrics.append({**row, "reference": reference, "part": record.part})
            record.ref_jobs.append(job_rows(sched, "scalar_rl", workload).assign(reference=reference, jobset=record.part))
            continue
        rows.append(row)
        per_job.append(job_rows(sched, "scalar_rl", workload))
    return rows, per_job


def job_rows(schedule: pd.DataFrame, method: str, workload: str) -> pd.DataFrame:
    """Each job's wait (hours) and slowdown in submission order (``job`` 0, 1, ...): the same jobs
    in the same order for every method, so comparisons can be paired job by job."""
    from schedrl import metrics

    s = schedule.sort_values(["submit_time", "job_id"], kind="stable")
    return pd.DataFrame({"workload": workload, "method": method, "job": np.arange(len(s)),
                         "wait_h": metrics.wait_times(s) / 3600.0, "slowdown": metrics.slowdowns(s)})


# ---------------------------------------------------------------------------------------------
# the tables the claims and figures read

def read_csv(path) -> pd.DataFrame:
    from schedrl.io import read_result

    return read_result(path)


def seed_metrics(spec: dict, root=ROOT, workloads=None, split: str = "test") -> pd.DataFrame:
    """Every method's metrics on the workloads, with a ``seed`` column: the base seed's evaluation
    (every method) and each extra seed's (MRSch alone)."""
    names = workloads or spec["workloads"]
    return pd.concat([read_csv(eval_dir(root, w, split, _extra(spec, s)) / "metrics.csv").assign(seed=s)
                      for s in seeds(spec) for w in names], ignore_index=True)


def mean_over_seeds(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per ``keys`` (e.g. workload and method): numeric columns averaged over the seeds'
    rows, worst-case times (``*_max``) their maximum, the rest the first row's; ``seeds`` counts
    the rows averaged."""
    rest = [c for c in frame.columns if c not in keys and c != "seed"]
    numeric = set(frame[rest].select_dtypes("number").columns)
    how = {c: ("max" if c.endswith("_max") else "mean") if c in numeric else "first" for c in rest}
    grouped = frame.groupby(keys, sort=False, dropna=False)
    out = grouped.agg(how).reset_index()
    out["seeds"] = grouped.size().to_numpy()
    return out


def all_metrics(spec: dict, root=ROOT, workloads=None, split: str = "test") -> pd.DataFrame:
    """One row per workload and method; MRSch's is the mean over its seeds (``seed_metrics``)."""
    return mean_over_seeds(seed_metrics(spec, root, workloads, split), ["workload", "method"])


def all_goals(spec: dict, root=ROOT, workloads=None) -> pd.DataFrame:
    names = workloads or spec["workloads"]
    return pd.concat([read_csv(eval_dir(root, w) / "goals.csv") for w in names], ignore_index=True)


def kiviat_scores(frame: pd.DataFrame, axes: list[str], scale_by=None) -> pd.DataFrame:
    """Per workload, each axis scaled to [0, 1] with 1 the best method (utilisations as they are,
    wait and slowdown as reciprocals, as the paper's Kiviat charts), and the polygon's area.
    ``scale_by``: the methods whose best is 1 (the others, e.g. diagnostic rows, may pass 1;
    None: every row's)."""
    out = []
    for _wl, part in frame.groupby("workload", sort=False):
        part = part.copy()
        ref = np.ones(len(part), dtype=bool) if scale_by is None else part["method"].isin(list(scale_by)).to_numpy()
        for ax in axes:
            v = part[ax].to_numpy(dtype=float)
            v = 1.0 / np.maximum(v, 1e-12) if ax in ("mean_wait_h", "mean_slowdown") else v
            top = np.nanmax(v[ref]) if ref.any() else np.nan
            part[f"k_{ax}"] = v / top if top > 0 else 0.0
        k = part[[f"k_{ax}" for ax in axes]].to_numpy(dtype=float)
        part["area"] = 0.5 * np.sin(2 * np.pi / len(axes)) * (k * np.roll(k, -1, axis=1)).sum(axis=1)
        out.append(part)
    return pd.concat(out, ignore_index=True)


def improvement(frame: pd.DataFrame, metric: str, baselines=("fcfs", "ga", "scalar_rl")) -> pd.DataFrame:
    """Per workload and baseline, MRSch's relative gain on ``metric`` (positive = better: a higher
    utilisation, a lower wait or slowdown), as a fraction of the baseline's value."""
    rows = []
    lower = metric in ("mean_wait_h", "mean_slowdown")
    for wl, part in frame.groupby("workload", sort=False):
        ours = float(part.loc[part["method"] == "mrsch", metric].iloc[0])
        for b in baselines:
            base = part.loc[part["method"] == b, metric]
            if base.empty or not np.isfinite(base.iloc[0]) or base.iloc[0] == 0:
                continue
            v = float(base.iloc[0])
            rows.append({"workload": wl, "baseline": b, "metric": metric,
                         "gain": (v - ours) / v if lower else (ours - v) / v})
    return pd.DataFrame(rows, columns=["workload", "baseline", "metric", "gain"])


# ---------------------------------------------------------------------------------------------
# the agents at shares of their training (issue 24): batched greedy play of the budget models

def play_dfp_batch(agent, envs: list, frames: list[pd.DataFrame]) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """Greedy play of one agent on several job tables in lockstep (one forward pass per decision
    round over every episode still running); returns the schedules and goal traces, as ``play_dfp``."""
    obs, infos = map(list, zip(*(e.reset(options={"jobs": f}) for e, f in zip(envs, frames))))
    done, goals = [False] * len(envs), [[] for _ in envs]
    while not all(done):
        live = [i for i, d in enumerate(done) if not d]
        acts = agent.act(np.stack([obs[i].reshape(-1) for i in live]),
                         np.stack([np.asarray(infos[i]["utilization"], dtype=np.float32) for i in live]),
                         np.stack([np.asarray(infos[i]["demand_share"], dtype=np.float32) for i in live]),
                         np.stack([infos[i]["action_mask"] for i in live]))
        for a, i in zip(acts, live):
            goals[i].append([infos[i]["clock"], *np.asarray(infos[i]["demand_share"], dtype=float)])
            obs[i], _, term, trunc, infos[i] = envs[i].step(int(a))
            done[i] = bool(term or trunc)
    return [info["schedule"] for info in infos], [pd.DataFrame(g) for g in goals]


def evaluate_budgets(spec: dict, group: str, root=ROOT, base=WORKLOAD_DIR, threads: int = 1, seed: int | None = None):
    """MRSch (and, for S1-S5, its CNN variant) at each share of training in ``BUDGET_SNAPSHOTS`` on
    every workload of ``group``: the held-out test splits (``split`` "test") and the in-sample real
    training sets (``split`` "train", pooled per workload as ``pool_metrics``), all episodes of one
    model played in lockstep. Returns (metrics with ``fraction`` and ``budget_jobs``, goal traces
    of the MLP agent on the test splits). The whole-training values are the main evaluation's,
    unless ``dfp.select_on_validation`` is on (then the final model is played here too). With an
    extra ``seed``, that seed's MLP agent alone."""
    import torch

    from schedrl.agents.dfp import DFPAgent

    torch.set_num_threads(max(1, threads))
    w = int(spec["window"])
    names = group_workloads(spec, group)
    cases = [("test", wl, test_jobs(spec, wl, base)) for wl in names]
    for wl in insample_workloads(spec, group):
        cases += [("train", wl, f.reset_index(drop=True)) for f in trained_real_sets(spec, wl, base)]
    own = _extra(spec, seed)
    states = agent_states(spec, group, own)
    metrics, goals = [], []
    # with selection on, the main evaluation plays the selected model: the final one is played
    # here too, so that the budget curve's last point stays the whole of training
    for fraction in BUDGET_SNAPSHOTS + ((1.0,) if select_on_validation(spec) else ()):
        extra = {"fraction": fraction, "budget_jobs": budget_sets(spec, fraction) * int(spec["jobs_per_set"])}
        for method, state in states:
            agent = DFPAgent.load(budget_model(root, group, state, fraction, seed=own))
            scheds, traces = play_dfp_batch(agent, [make_env(f, w, **env_kwargs(spec)) for *_, f in cases],
                                            [f for *_, f in cases])
            rows = {"test": [], "train": []}
            for (split, wl, frame), sched, trace in zip(cases, scheds, traces):
                rows[split].append(pd.DataFrame([metrics_row(sched, cluster_of(frame), method, wl, **extra)]))
                if split == "test" and method == "mrsch":
                    trace.columns = ["clock", *(f"r_{r}" for r in RESOURCES[group])]
                    goals.append(trace.assign(workload=wl, fraction=fraction))
            metrics.append(pd.concat(rows["test"], ignore_index=True).assign(split="test"))
            if rows["train"]:
                train = pd.concat(rows["train"], ignore_index=True)
                pooled = pool_metrics([train])  # one row per workload: the mean over its job sets
                pooled["jobsets"] = pooled["workload"].map(train["workload"].value_counts())
                metrics.append(pooled.assign(split="train"))
    return pd.concat(metrics, ignore_index=True), pd.concat(goals, ignore_index=True)
