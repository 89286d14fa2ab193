"""Each paper's held-out evaluation, as a scoring suite.

A suite plays every given policy on its paper's held-out workloads under the paper's protocol,
plays the paper's baselines on the same jobs, and reads the pipeline's trained agents' results from
``results/<paper>/`` where a finished run left them. It returns ``Entry`` records (per-unit values:
episodes, trials, jobs or workloads) and one-line notes (what did not fit and why, what was missing).

| paper | env family | held-out workloads | metric(s) | baselines |
| --- | --- | --- | --- | --- |
| deeprm | grid (discrete variant) | ``eval.episodes`` job sets from ``eval.jobset_seed`` at ``eval.box_rate`` | mean slowdown over every arrived job, per episode | SJF, Packer, Random (uniform over all actions), Random valid |
| mdp | grid (placement now) | ``eval.trials`` job sets per scenario | mean slowdown per trial | SJF, Packer (reference), Random valid |
| sem | pick-and-reserve | each trace's test part | wait (h), slowdown per job; utilisation | FCFS+EASY, SJF+EASY, Random valid (DRAS's encoding) |
| mrsch | pick-and-reserve, under ``mrsch.process`` | S1-S10 test splits (``eval.max_jobs``) | per workload: mean wait (h), slowdown, node and BB utilisation | FCFS+EASY, SJF+EASY, SAF+EASY (smallest area first), Random valid (GA, scalar RL, MRSch from results) |
| runtime | time-stepped | the six "b" halves, ``evaluate.episodes`` each | utilisation per episode | Table 4's SJF, SJF w/ BF (EASY), FCFS, FCFS w/ BF (EASY) in the core's time-stepped simulator on each episode's jobs and step limit; FCFS, SJF as priority picks; Random valid |
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError
from schedrl.papers import PAPERS as _PAPER_TITLES
from schedrl.score.board import RANDOM_VALID
from schedrl.score.policy import Policy, PolicyError, PolicyRaised

PAPERS = tuple(_PAPER_TITLES)  # schedrl.papers.PAPERS, in its order
MAX_STEPS = 5_000_000


@dataclass
class Entry:
    """One policy's values on one leaderboard: ``values`` per seed (list of 1-D arrays)."""

    paper: str
    board: str            # which leaderboard of the paper (rate, scenario, trace, group)
    policy: str
    role: str             # "yours", "baseline" or "agent"
    metric: str
    values: list          # list of 1-D arrays (one per seed or workload)
    unit: str             # what one value is (episode, trial, job, workload)
    better: str           # "lower" or "higher"
    note: str = ""


@dataclass
class SuiteResult:
    paper: str
    entries: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (policy, one line, traceback)
    misfits: dict[str, list[str]] = field(default_factory=dict)  # policy -> reasons (one per env tried)
    failed: set = field(default_factory=set)  # policies that failed once: not played again in this suite

    def misfit(self, policy: Policy, reason: str) -> None:
        self.misfits.setdefault(policy.name, []).extend(r for r in reason.split("; ")
                                                         if r not in self.misfits.get(policy.name, []))

    def misfit_lines(self) -> list[str]:
        """One line per policy that fits none (or not all) of this paper's envs."""
        yours = {e.policy for e in self.entries if e.role == "yours"}
        lines = []
        for name, reasons in self.misfits.items():
            shapes = [re.match(r"the model reads observations of shape (.+), the env gives (.+)$", r) for r in reasons]
            if reasons and all(shapes) and len({m.group(1) for m in shapes}) == 1:
                envs = ", ".join(dict.fromkeys(m.group(2) for m in shapes))
                reasons = [f"the model reads observations of shape {shapes[0].group(1)}; its envs give {envs}"]
            some = " (some of its envs)" if name in yours else ""
            lines.append(f"{name} does not fit {self.paper}{some}: {'; '.join(reasons)}")
        return lines


def _fail(result: SuiteResult, policy: Policy, exc: Exception) -> None:
    tb = exc.user_traceback if isinstance(exc, PolicyRaised) else ""
    result.failures.append((policy.name, str(exc), tb))
    result.failed.add(policy.name)


def _label(env, text: str):
    env.unwrapped.score_label = text
    return env


RANDOM_VALID_NOTE = "uniform among the actions info['action_mask'] allows (generator seeded 0): the normalised 0"


def random_valid_policy(seed: int = 0) -> Policy:
    """Random valid play in any env family: uniform among the actions ``info["action_mask"]`` allows
    (the void or wait action included where the env has one), from a generator of its own seeded with
    ``seed`` (the env's generator is left alone, so the jobs are those every other policy plays); the 0
    of the boards' normalised column."""
    rng = np.random.default_rng(int(seed))

    def random_valid(obs, info):
        return int(rng.choice(np.flatnonzero(np.asarray(info["action_mask"]))))

    return Policy(RANDOM_VALID, "random valid", "policy", random_valid)


def _seed_torch(seed: int) -> None:
    try:
        import torch

        torch.manual_seed(int(seed))
    except ImportError:  # pragma: no cover - torch is a dependency
        pass


def play_schedule(env, fn, **reset) -> pd.DataFrame:
    """One episode of ``fn(obs, info)`` in an HPC env; its schedule."""
    obs, info = env.reset(**reset)
    for _ in range(MAX_STEPS):
        obs, _, term, trunc, info = env.step(fn(obs, info))
        if term or trunc:
            return info["schedule"]
    raise SchedrlError(f"{env.unwrapped.score_label}: the episode did not end within {MAX_STEPS} steps")


def _first_fit(policy: Policy, make_env, options: list) -> tuple[object, object, str | None]:
    """The first of ``options`` whose env the policy fits: (option, env, None) or (None, None, reason)."""
    reasons = []
    for option in options:
        env = make_env(option)
        reason = policy.misfit(env)
        if reason is None:
            return option, env, None
        reasons.append(reason)
        env.close()
    return None, None, "; ".join(dict.fromkeys(reasons))


def _play_yours(out: SuiteResult, policies: list[Policy], make_env, options_of, play) -> None:
    """Play every submitted policy (not failed before) on the first of ``options_of(policy)`` it
    fits, as ``play(policy, option, "yours")``; a misfit or a failure is recorded, not raised."""
    for policy in [p for p in policies if p.name not in out.failed]:
        option, env, reason = _first_fit(policy, make_env, options_of(policy))
        if reason:
            out.misfit(policy, reason)
            continue
        env.close()
        try:
            play(policy, option, "yours")
        except (PolicyError, PolicyRaised) as exc:
            _fail(out, policy, exc)


# =============================================================================================
# deeprm: the SB3 report's DeepRM, held-out job sets at the box-plot rate

def deeprm(config: dict, policies: list[Policy], agents: bool = True) -> SuiteResult:
    from schedrl.papers.deeprm import evaluation as DE
    from schedrl.papers.deeprm import layout as DL
    from schedrl.papers.deeprm import training as DT
    from schedrl.schedulers.grid import POLICIES

    spec = DL.check_spec(config["deeprm"])
    out = SuiteResult("deeprm")
    setup = DL.protocol_setup(spec, "heldout")
    rate = float(spec["eval"]["box_rate"])
    episodes, jobset_seed = setup["episodes"], setup["jobset_seed"]
    variants = [v for v in spec["variants"] if DL.parse_variant(v)[0] == "discrete"]
    if not variants:
        out.notes.append("deeprm: no discrete variant configured; nothing to score")
        return out
    main = "discrete-image" if "discrete-image" in variants else variants[0]

    def kwargs_of(variant):
        return {**DT.env_kwargs(spec, variant, "slowdown"), **setup["overrides"]}

    def probe(variant):
        from schedrl.experiments.envs import make_env

        return make_env(DL.ENV_ID, {**kwargs_of(variant), "jobset_seed": jobset_seed, "num_jobsets": 1})

    load = DE.rate_load(rate, kwargs_of(main))

    def board(variant):
        return f"{variant}, rate {rate:g} (load {load:.0%}), {episodes} held-out job sets"

    def play(policy: Policy, variant: str, role: str):
        def make_policy(env):
            _seed_torch(0)
            return policy.bind(_label(env, f"deeprm {variant}"), deterministic=setup["deterministic"])

        _, per_episode = DE.evaluate_over_rates(make_policy, kwargs_of(variant), [rate], episodes, jobset_seed,
                                               "heldout")
        out.entries.append(Entry("deeprm", board(variant), policy.name, role, "mean slowdown",
                                 [per_episode["mean_slowdown"].to_numpy(float)], "episode", "lower"))

    _play_yours(out, policies, probe, lambda p: variants if p.kind in ("sb3", "run") else [main], play)
    for name in DL.BASELINES:
        play(Policy(DL.label(name), name, "heuristic", POLICIES[name]), main, "baseline")
    play(random_valid_policy(), main, "baseline")
    if agents:
        for variant in variants:
            groups: dict[str, list] = {}
            for algo, objective, seed in DL.agent_runs(spec, variant):
                path = DL.eval_paths(DL.run_dir(DL.ROOT, variant, algo, objective, seed), "heldout")["episodes"]
                if path.is_file():
                    frame = pd.read_csv(path)
                    frame = frame[np.isclose(frame["rate"], rate)]
                    if len(frame):
                        groups.setdefault(DL.label(algo, objective), []).append(frame["mean_slowdown"].to_numpy(float))
            for label, values in groups.items():
                out.entries.append(Entry("deeprm", board(variant), label, "agent", "mean slowdown", values,
                                         "episode", "lower", f"{len(values)} seed(s), sampled actions"))
    return out


# =============================================================================================
# mdp: Table 3 scenarios, greedy trials on fixed job sets

def mdp(config: dict, policies: list[Policy], agents: bool = True) -> SuiteResult:
    from schedrl.envs.rollout import run_policy
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import layout as M
    from schedrl.schedulers.grid import POLICIES

    spec = M.check_spec(config["mdp"])
    out = SuiteResult("mdp")
    horizon = int(spec["horizon"])
    ev = spec["eval"]
    trials, jobset_seed, greedy = int(ev["trials"]), int(ev["jobset_seed"]), bool(ev["deterministic"])
    default_variant = spec["variants"][0]

    def board(sid):
        s = M.scenario(sid)
        return f"scenario {sid} (n_p {s.procs}, d {s.max_len}, j_s {s.max_size}), H {horizon}, {trials} trials"

    def play(policy: Policy, variant: str, sid: int, role: str, note: str = ""):
        # one env walks the job sets jobset_seed + k, k = 0..trials-1 (pcg64), as evaluate_model's envs do
        kwargs = {**M.env_kwargs(variant, sid, horizon), "jobset_seed": jobset_seed, "num_jobsets": trials}
        _seed_torch(jobset_seed)
        env = _label(make_env(M.ENV_ID, kwargs), f"mdp scenario {sid} ({variant})")
        try:
            table = run_policy(env, policy.bind(env, deterministic=greedy), trials, seed=jobset_seed)
        finally:
            env.close()
        values = table.groupby("episode")["slowdown"].mean().reindex(range(trials)).to_numpy(float)
        out.entries.append(Entry("mdp", board(sid), policy.name, role, "mean slowdown", [values],
                                 "trial", "lower", note))

    for sid in spec["scenarios"]:
        sid = int(sid)
        _play_yours(out, policies,
                    lambda v, sid=sid: make_env(M.ENV_ID, {**M.env_kwargs(v, sid, horizon), "jobset_seed": 0}),
                    lambda p: list(M.VARIANTS) if p.kind in ("sb3", "run") else [default_variant],
                    lambda p, v, role, sid=sid: play(p, v, sid, role))
        for name in ("sjf", "packer"):
            play(Policy(name.upper() if name == "sjf" else "Packer", name, "heuristic", POLICIES[name]),
                 default_variant, sid, "baseline", "reference (the paper compares MDPs, not heuristics)")
        play(random_valid_policy(), default_variant, sid, "baseline", RANDOM_VALID_NOTE)
        if agents:
            for variant in spec["variants"]:
                values = []
                for seed in spec["seeds"]:
                    path = M.eval_path(M.run_dir(M.ROOT, horizon, variant, sid, seed))
                    if Path(path).is_file():
                        values.append(pd.read_csv(path)["mean_slowdown"].to_numpy(float))
                if values:
                    out.entries.append(Entry("mdp", board(sid), f"PPO, {M.variant(variant).label} MDP", "agent",
                                             "mean slowdown", values, "trial", "lower", f"{len(values)} seed(s), greedy"))
    return out


# =============================================================================================
# HPC envs: sem, mrsch, runtime

def _schedule_entries(paper, board, name, role, schedule, cluster, note="") -> list[Entry]:
    from schedrl import metrics

    done = schedule[schedule["start_time"].notna()]
    return [Entry(paper, board, name, role, "wait (h)", [metrics.wait_times(done) / 3600.0], "job", "lower", note),
            Entry(paper, board, name, role, "slowdown", [metrics.slowdowns(done)], "job", "lower", note),
            Entry(paper, board, name, role, "utilisation", [np.asarray([metrics.utilization(schedule, cluster.nodes)])],
                  "schedule", "higher", note)]


def _sem_agent_entries(board: str, encoder: str, folder: Path) -> list[Entry]:
    """A trained SEM/DRAS agent's greedy test pass per seed (the run folder and ``seeds/*``): wait and
    slowdown per test job from ``test_jobs.csv``, utilisation per seed from ``test.json``; a seed
    without per-job values counts with its mean alone."""
    from schedrl.io import read_json

    runs = [folder] + sorted((d for d in (folder / "seeds").glob("*") if d.name.isdigit()), key=lambda d: int(d.name))
    runs = [d for d in runs if (d / "test.json").is_file()]
    if not runs:
        return []
    waits, slows, utils, means_only = [], [], [], 0
    for d in runs:
        m = read_json(d / "test.json")
        jobs = pd.read_csv(d / "test_jobs.csv") if (d / "test_jobs.csv").is_file() else None
        if jobs is None or jobs.empty:
            means_only += 1
            waits.append(np.asarray([m["mean_wait"] / 3600.0]))
            slows.append(np.asarray([m["mean_slowdown"]]))
        else:
            waits.append(jobs["wait"].to_numpy(float) / 3600.0)
            slows.append(jobs["slowdown"].to_numpy(float))
        utils.append(float(m["utilization"]))
    note = f"greedy test pass of {len(runs)} seed(s), per test job"
    if means_only:
        note += f"; {means_only} seed(s) without test_jobs.csv count by their mean"
    name = f"{encoder.upper()} agent"
    return [Entry("sem", board, name, "agent", "wait (h)", waits, "job", "lower", note),
            Entry("sem", board, name, "agent", "slowdown", slows, "job", "lower", note),
            Entry("sem", board, name, "agent", "utilisation", [np.asarray(utils)], "seed", "higher", note)]


def sem(config: dict, policies: list[Policy], agents: bool = True, base: str | Path = "results/workloads/sem") -> SuiteResult:
    from schedrl.envs.pick_reserve import PickReserveEnv
    from schedrl.papers.sem.agents import ENCODERS, HEURISTICS, time_scale_of
    from schedrl.sim import ClusterSpec, simulate
    from schedrl.workloads.swf import read_swf

    spec = config["sem"]["agents"]
    out = SuiteResult("sem")
    for trace in spec["traces"]:
        net = spec["networks"][trace]
        split = Path(base) / trace
        if not (split / "test.swf").is_file():
            out.notes.append(f"sem {trace}: {split / 'test.swf'} missing; build it with "
                             f"'snakemake {split / 'test.swf'}' (rule workload_sem_split)")
            continue
        test, train = read_swf(split / "test.swf"), read_swf(split / "train.swf")
        scale = time_scale_of(train)
        cluster = ClusterSpec(nodes=int(net["nodes"]))
        board = f"{trace} test part ({len(test)} jobs, {net['nodes']} nodes)"

        def make(encoder, trace=trace, net=net, test=test, scale=scale):
            return _label(PickReserveEnv(jobs=test, cluster=int(net["nodes"]), encoder=encoder, reward=net["reward"],
                                         reward_kwargs=dict(net.get("reward_kwargs") or {}), window=50,
                                         k=int(net["k"]), time_scale=scale), f"sem {trace} test")

        for policy in [p for p in policies if p.name not in out.failed]:
            options = list(ENCODERS) if policy.kind in ("sb3", "run") else ["sem"]
            _, env, reason = _first_fit(policy, make, options)
            if reason:
                out.misfit(policy, reason)
                continue
            try:
                _seed_torch(0)
                schedule = play_schedule(env, policy.bind(env, deterministic=True))
                out.entries += _schedule_entries("sem", board, policy.name, "yours", schedule, cluster)
            except (PolicyError, PolicyRaised) as exc:
                _fail(out, policy, exc)
        for name in HEURISTICS:
            schedule = simulate(test, cluster, policy=name, backfill="easy")
            out.entries += _schedule_entries("sem", board, f"{name.upper()}+EASY", "baseline", schedule, cluster)
        # in DRAS's encoding, as the random valid reference the normalised score anchors on
        env = make("dras")
        schedule = play_schedule(env, random_valid_policy().bind(env))
        out.entries += _schedule_entries("sem", board, RANDOM_VALID, "baseline", schedule, cluster,
                                         RANDOM_VALID_NOTE + "; DRAS's encoding")
        if agents:
            for encoder in ENCODERS:
                out.entries += _sem_agent_entries(board, encoder, Path("results/sem/agents") / trace / encoder)
    return out


MRSCH_METRICS = (("mean_wait_h", "mean wait (h)", "lower"), ("mean_slowdown", "mean slowdown", "lower"),
                 ("node_util", "node utilisation", "higher"), ("bb_util", "BB utilisation", "higher"))


def mrsch_evaluated_rows(spec: dict, root, workload: str, notes: list[str]) -> list[tuple[str, str, dict]]:
    """(label, role, metrics row) of the GA, scalar RL and the DFP agents as rule mrsch_evaluate
    wrote them for ``workload`` (none before it ran). MRSch is read as its claims read it, the mean
    over the main agents' seeds; while an extra seed is not evaluated, the base seed's alone, and
    ``notes`` says so."""
    from schedrl.papers.mrsch import evaluation as RE
    from schedrl.papers.mrsch import layout as R

    if not (R.eval_dir(root, workload) / "metrics.csv").is_file():
        return []
    try:
        evaluated = RE.all_metrics(spec, root, [workload])
    except SchedrlError:
        evaluated = RE.all_metrics({**spec, "extra_seeds": []}, root, [workload])
        notes.append(f"mrsch {workload}: MRSch of seed {spec['seed']} only (its extra seeds are not evaluated yet)")
    return [(R.LABELS.get(row["method"], row["method"]), "baseline" if row["method"] == "ga" else "agent",
             row.to_dict())
            for _, row in evaluated.iterrows() if row["method"] in ("ga", "scalar_rl", "mrsch", "mrsch_cnn")]


def mrsch(config: dict, policies: list[Policy], agents: bool = True) -> SuiteResult:
    from schedrl.papers.mrsch import evaluation as RE
    from schedrl.papers.mrsch import layout as R
    from schedrl.sim import simulate

    spec = R.check_spec(config["mrsch"])
    out = SuiteResult("mrsch")
    window = int(spec["window"])
    rows = []  # (group, method, role, row)
    missing = []
    for workload in spec["workloads"]:
        try:
            frame = R.test_jobs(spec, workload)
        except SchedrlError:
            missing.append(workload)
            continue
        cluster = R.cluster_of(frame)
        group = R.group_of(workload)
        for policy in [p for p in policies if p.name not in out.failed]:
            # the process MRSch's comparisons play under (issue 35), so scores sit beside its rows
            env = _label(R.make_env(frame, window, **R.env_kwargs(spec)), f"mrsch {workload} test")
            reason = policy.misfit(env)
            if reason:
                out.misfit(policy, reason)
                continue
            try:
                _seed_torch(0)
                schedule = play_schedule(env, policy.bind(env, deterministic=True), options={"jobs": frame})
                rows.append((group, policy.name, "yours", RE.metrics_row(schedule, cluster, policy.name, workload)))
            except (PolicyError, PolicyRaised) as exc:
                _fail(out, policy, exc)
        for queue in ("fcfs", *R.REFERENCE_HEURISTICS):  # SJF, smallest area first: the normalised score's too
            rows.append((group, f"{queue.upper()}+EASY", "baseline", RE.metrics_row(
                simulate(frame, cluster, policy=queue, backfill="easy"), cluster, queue, workload)))
        env = _label(R.make_env(frame, window, **R.env_kwargs(spec)), f"mrsch {workload} test")
        schedule = play_schedule(env, random_valid_policy().bind(env), options={"jobs": frame})
        rows.append((group, RANDOM_VALID, "baseline", RE.metrics_row(schedule, cluster, "random valid", workload)))
        if agents:
            rows += [(group, *r) for r in mrsch_evaluated_rows(spec, R.ROOT, workload, out.notes)]
    if missing:
        out.notes.append(f"mrsch: test splits missing for {', '.join(missing)}; build them with "
                         "'snakemake workloads' (rule workload_mrsch)")
    for group in dict.fromkeys(g for g, *_ in rows):
        names = [w for w in spec["workloads"] if R.group_of(w) == group and w not in missing]
        board = f"{names[0]}-{names[-1]} test splits ({len(names)} workloads, first {spec['eval']['max_jobs']} jobs each)"
        for method, role in dict.fromkeys((m, r) for g, m, r, _ in rows if g == group):
            mine = [row for g, m, r, row in rows if g == group and m == method and r == role]
            for column, metric, better in MRSCH_METRICS:
                values = np.asarray([float(row.get(column, np.nan)) for row in mine])
                values = values[np.isfinite(values)]
                if len(values):
                    note = "" if len(values) == len(names) else f"only {len(values)} of the {len(names)} workloads"
                    if method == RANDOM_VALID:
                        note = "; ".join(x for x in (RANDOM_VALID_NOTE, note) if x)
                    elif role != "yours" and not method.endswith("+EASY"):
                        n_seeds = int(min(row.get("seeds", 1) for row in mine))
                        src = "from results/mrsch/eval" + (f", mean of {n_seeds} seeds" if n_seeds > 1 else "")
                        note = "; ".join(x for x in (src, note) if x)
                    out.entries.append(Entry("mrsch", board, method, role, metric, [values], "workload", better, note))
    return out


# =============================================================================================
# runtime: the time-stepped env; Table 4's algorithms replayed on each scored episode's jobs

def runtime_episode_jobs(env, seed: int) -> tuple[int, pd.DataFrame]:
    """The jobs of ``env``'s episode under ``reset(seed=seed)``: its first row and its rows, by the
    env's own block sampling (``HPCEnv._episode_table``), so the scored episode's jobs."""
    base = env.unwrapped
    if base.table is None:
        raise SchedrlError(f"{getattr(base, 'score_label', type(base).__name__)}: the Table 4 baselines "
                           "need the env's job table (a job factory has none)")
    env.reset(seed=int(seed))
    start = int(base.episode_start)
    return start, base.table.iloc[start: start + (base.episode_jobs or len(base.table))]


def core_schedule(jobs: pd.DataFrame, cluster, algorithm: str, *, sim_step: float, overrun: str,
                  max_steps: int | None = None) -> tuple[pd.DataFrame, int]:
    """``algorithm`` (``policy:backfill``, e.g. ``fcfs:easy``) on ``jobs`` in the core's
    ``HPCSimulator.run_policy``, built as ``simulate_algorithm`` builds it (ticks of ``sim_step``
    seconds without idle doubling; 0: event-driven), cut like a ``TimeSteppedPickEnv`` episode after
    ``max_steps`` of the env's steps (see ``run_policy``). Returns the schedule (a job never started
    has a NaN start, as in a truncated episode's) and the steps spent."""
    from schedrl.experiments.heuristics import parse_algorithm
    from schedrl.sim import HPCSimulator

    policy, backfill = parse_algorithm(algorithm)
    sim = HPCSimulator(cluster, overrun=overrun, sim_step=float(sim_step) or None, double_idle=False)
    sim.reset(jobs)
    sched = sim.run_policy(policy, backfill, max_steps=max_steps)
    return sched, sim.policy_steps


def runtime_table4(env, seeds, algorithms, *, sim_step: float, overrun: str) -> tuple[dict, dict]:
    """Per algorithm, the utilisation (``runtime_utilization``: [first submit, last end] of the
    episode's jobs, as the env's episodes are scored) of the core's run on the jobs and under the
    step limit of ``env``'s episode for each seed, and the share of those jobs it started. The
    algorithms are deterministic: one run per distinct block serves every seed that draws it."""
    from schedrl.metrics import runtime_utilization

    base = env.unwrapped
    util, started, runs = {a: [] for a in algorithms}, {a: [] for a in algorithms}, {}
    for seed in seeds:
        start, jobs = runtime_episode_jobs(env, seed)
        for a in algorithms:
            if (start, len(jobs), a) not in runs:
                sched, _ = core_schedule(jobs, base.cluster, a, sim_step=sim_step, overrun=overrun,
                                         max_steps=base.max_episode_steps)
                runs[start, len(jobs), a] = (runtime_utilization(sched, base.cluster.nodes),
                                             float(sched["start_time"].notna().mean()))
            u, share = runs[start, len(jobs), a]
            util[a].append(u)
            started[a].append(share)
    return {a: np.asarray(v) for a, v in util.items()}, {a: np.asarray(v) for a, v in started.items()}


def _runtime_table4_entries(out: SuiteResult, config: dict, spec: dict, tests: list[str], board: str,
                            seeds: list[int], make) -> None:
    """Table 4's four algorithms as baselines, each on the jobs and step limit of every scored
    episode, with the Sim_Step and overrun of rule runtime_heuristics (``table4.sim_step``,
    ``sim.overrun``)."""
    from schedrl.experiments.heuristics import algorithm_label, parse_algorithm
    from schedrl.papers.runtime import experiments as P

    sim_step = float(spec.get("table4", {}).get("sim_step", 60))
    overrun = str(config.get("sim", {}).get("overrun", "kill"))
    util, started = {a: [] for a in P.ALGORITHMS}, {a: [] for a in P.ALGORITHMS}
    for workload in tests:
        env = make(workload)
        try:
            sim = env.unwrapped.sim
            mismatch = float(sim.sim_step or 0) != sim_step or sim.overrun != overrun
            if mismatch and workload == tests[0]:
                out.notes.append(f"runtime: Table 4's algorithms tick every {sim_step:g} s with overrun "
                                 f"'{overrun}', the env every {float(sim.sim_step or 0):g} s with "
                                 f"'{sim.overrun}': their utilisations do not compare like for like")
            u, s = runtime_table4(env, seeds, P.ALGORITHMS, sim_step=sim_step, overrun=overrun)
        finally:
            env.close()
        for a in P.ALGORITHMS:
            util[a].append(u[a])
            started[a].append(s[a])
    clock = f"time-stepped (Sim_Step {sim_step:g} s, no idle doubling" if sim_step else "event-driven ("
    how = (f"the core's simulator, {clock}, overrun {overrun}) on "
           "each episode's jobs, the whole queue in the policy's order, stopped after evaluate.max_steps "
           "env steps (a start or an advance while jobs wait); utilisation over the episode's span")
    for a in P.ALGORITHMS:
        backfill = parse_algorithm(a)[1]
        label = algorithm_label(a) + (" (EASY)" if backfill == "easy" else " (no BF)")
        rule = ("EASY: the head is reserved, later jobs backfill around it" if backfill == "easy"
                else "strict order: a head that does not fit holds the queue")
        shares = np.concatenate(started[a]) if started[a] else np.zeros(0)
        cut = int((shares < 1).sum())
        note = f"{rule}; {how}"
        if cut:
            note += f"; the step limit cut {cut} of {len(shares)} episodes ({shares.mean():.0%} of the jobs started)"
        out.entries.append(Entry("runtime", board, label, "baseline", "utilisation", util[a], "episode",
                                 "higher", note))


def runtime(config: dict, policies: list[Policy], agents: bool = True) -> SuiteResult:
    from schedrl.experiments.envs import make_env
    from schedrl.metrics import runtime_utilization
    from schedrl.papers.runtime import experiments as P
    from schedrl.schedulers import get_policy

    spec = P.check_spec(config["runtime"])
    out = SuiteResult("runtime")
    ev = spec["evaluate"]
    episodes, seed0, greedy = int(ev["episodes"]), int(ev["seed"]), bool(ev["deterministic"])
    tests = [w for w in P.TEST_WORKLOADS if Path(P.workload_file(w)).is_file()]
    missing = [w for w in P.TEST_WORKLOADS if w not in tests]
    if missing:
        out.notes.append(f"runtime: workloads missing: {', '.join(missing)}; build them with 'snakemake workloads' "
                         "(rule workload_runtime)")
    if not tests:
        return out
    board = (f"the {len(tests)} 'b' halves, {episodes} episode(s) each, at most {ev['max_steps']} steps, "
             f"{spec.get('nodes', 256)} nodes")

    def make(encoder, workload):
        env = make_env(P.ENV_ID, P.env_kwargs(spec, encoder, workload, training=False))
        return _label(env, f"runtime {workload}")

    def play(policy: Policy, encoder: str, role: str, note: str = ""):
        values = []
        for workload in tests:
            env = make(encoder, workload)
            try:
                per = []
                for k in range(episodes):
                    _seed_torch(seed0 + k)
                    sched = play_schedule(env, policy.bind(env, deterministic=greedy), seed=seed0 + k)
                    per.append(runtime_utilization(sched, env.unwrapped.cluster.nodes))
                values.append(np.asarray(per))
            finally:
                env.close()
        out.entries.append(Entry("runtime", board, policy.name, role, "utilisation", values, "episode", "higher", note))

    encoders = sorted({enc for enc, _ in P.METHODS.values()})
    _play_yours(out, policies, lambda e: make(e, tests[0]),
                lambda p: encoders if p.kind in ("sb3", "run") else ["runtime_baseline"], play)
    for name in ("fcfs", "sjf"):
        play(Policy(f"{name.upper()} (priority pick)", name, "priority", get_policy(name).key_fn), "runtime_baseline",
             "baseline", "starts the first job that fits in the order among the env's window, else advances (no "
             "reservation): the core's first-fit ('greedy') mode, not Table 4's FCFS/SJF")
    play(random_valid_policy(), "runtime_baseline", "baseline", RANDOM_VALID_NOTE)
    _runtime_table4_entries(out, config, spec, tests, board, [seed0 + k for k in range(episodes)],
                            lambda w: make("runtime_baseline", w))
    if agents:
        files = [f for f in P.evaluation_files(spec) if Path(f).is_file()]
        if files:
            frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
            frame = frame[(frame["estimator"] == "actual") & frame["test"].isin(tests)]
            for method, part in frame.groupby("method", sort=False):
                values = [g["utilization"].to_numpy(float) for _, g in part.groupby("test", sort=False)]
                out.entries.append(Entry("runtime", board, f"PPO {P.LABELS.get(method, method)}", "agent",
                                         "utilisation", values, "episode", "higher",
                                         f"trained on {', '.join(sorted(part['train'].unique()))}; every grid point and seed"))
    return out


SUITES = {"deeprm": deeprm, "mdp": mdp, "sem": sem, "mrsch": mrsch, "runtime": runtime}


# =============================================================================================
# what a scoring run reads (the Snakemake rule's inputs)

def workload_inputs(config: dict, papers) -> list[str]:
    """The held-out workload files the suites of ``papers`` read (the grid papers generate theirs)."""
    files = []
    if "sem" in papers:
        for trace in config["sem"]["agents"]["traces"]:
            files += [f"results/workloads/sem/{trace}/{part}.swf" for part in ("train", "test")]
    if "mrsch" in papers:
        files += [f"results/workloads/mrsch/{w}/test.swf" for w in config["mrsch"]["workloads"]]
    if "runtime" in papers:
        from schedrl.papers.runtime import experiments as P

        files += [P.workload_file(w) for w in P.TEST_WORKLOADS]
    return files


def agent_inputs(config: dict, papers) -> list[str]:
    """The trained agents' evaluation files the suites of ``papers`` read."""
    files = []
    if "deeprm" in papers:
        from schedrl.papers.deeprm import layout as DL

        spec = config["deeprm"]
        for variant in (v for v in spec["variants"] if DL.parse_variant(v)[0] == "discrete"):
            files += [str(DL.eval_paths(DL.run_dir(DL.ROOT, variant, a, o, s), "heldout")["episodes"])
                      for a, o, s in DL.agent_runs(spec, variant)]
    if "mdp" in papers:
        from schedrl.papers.mdp import layout as M

        spec = config["mdp"]
        files += [str(M.eval_path(M.run_dir(M.ROOT, spec["horizon"], v, sid, seed)))
                  for sid in spec["scenarios"] for v in spec["variants"] for seed in spec["seeds"]]
    if "sem" in papers:
        from schedrl.papers.sem.agents import ENCODERS

        files += [f"results/sem/agents/{t}/{e}/test.json" for t in config["sem"]["agents"]["traces"] for e in ENCODERS]
    if "mrsch" in papers:
        from schedrl.papers.mrsch import layout as R

        spec = config["mrsch"]  # every seed's evaluation: the board reads MRSch's mean over them
        files += [str(R.eval_dir(R.ROOT, w, "test", s) / "metrics.csv")
                  for s in [None, *R.extra_seeds(spec)] for w in spec["workloads"]]
    if "runtime" in papers:
        from schedrl.papers.runtime import experiments as P

        files += P.evaluation_files(config["runtime"])
    return files
