"""The SEM paper's tuned agent (issue 69): what ``schedrl tune sem`` searches and writes.

The study (``sem.tune``; ``schedrl.experiments.tune``) trains one encoder's REINFORCE agent
(``encoder``: ``sem``, the default, or ``dras``) on one trace's SEM split (``trace``: default the
first of ``sem.agents.traces``) as ``agents.train_agent`` trains it: the same env, encoder, reward,
time scale, ``pair_conv`` network and action streams, one training block of the training part per
episode, in order, the trial's seed seeding the agent as ``sem.agents.extra_seeds`` do (seeds
``sem.agents.seed`` and the next). ``SemLearner`` runs the trainer itself (``train_reinforce``), one
call per chunk of episodes into a temporary run folder, deleted at ``close``: the trainer resumes
exactly (``tests/test_exact_resume_own_loops.py``), so a chunked trial learns as one uninterrupted
run, and as ``train_agent``, which calls it once per episode.

A step of the study is a **training job**: ``steps`` is the jobs per seed of a trial (the first
``steps`` of the training part), trained in ``checks`` chunks; a chunk trains the episodes that end
within its jobs, so trials with other episode lengths see the same jobs. Each check scores the agent
by greedy play on the split's **validation part** (``val.swf``; never the test part, and never
``validation: test_like``, which chooses its block by the test part's load) with ``metric``
(default ``mean_wait``, the metric sem's normalised scores use; lower-is-better metrics negated, so
higher is better), as ``train_agent``'s validation rows measure it.

Searched (every one beyond the paper, so a deviation), under the names the pipeline reads:

* REINFORCE's values, ``sem.agents.hyperparams``' keys (``ReinforceConfig``): ``learning_rate``,
  ``discount``, ``baseline`` (``normalise``, ``time``, ``none``), ``trajectories`` (episodes played
  per update: the batch), ``update_every`` (DRAS's in-episode updates, which play one trajectory:
  a trial with ``update_every`` > 0 trains with ``trajectories`` 1, whatever it drew for it),
  ``optimizer``, ``activation``, ``contested_only``, ``mask_actions``; not ``examples_per_update``
  (an iteration is one training block, so it changes nothing). REINFORCE here has no entropy term.
* ``hidden``: the encoder's dense layers on the trace (``sem.agents.networks.<trace>.hidden.<encoder>``);
* ``episode_jobs``: jobs per training episode (``sem.agents.networks.<trace>.episode_jobs``, an
  option added for this study: whole blocks over the same training part, in place of the split's).

A value left out of ``space`` keeps the config's. The recipe is a config overlay
(``config/tuned/sem.yml``): ``sem.agents.hyperparams`` (the searched keys: every sem agent reads
that one block, so both encoders and traces train with them), the tuned trace's ``hidden`` of the
tuned encoder and ``episode_jobs``, and ``extra_seeds`` (three seeds in all), so the tuned agents
train, play and are recorded by sem's own rules at the paper's budget (sem's default scale is it):
``snakemake sem --cores 2 --configfile config/tuned/sem.yml``.
"""

from __future__ import annotations

import copy
import shutil
import tempfile
from pathlib import Path
from typing import Any

from schedrl.errors import ConfigError
from schedrl.experiments.tune import (
    StudySpec,
    check_space,
    extremes,
    recipe_text,
    run_paper_study,
    study_spec,
    with_trials,
)

ROOT = "results/tuned/sem"
#: where the workload rule writes each trace's SEM split (train.swf, val.swf, test.swf, split.json)
SPLIT_ROOT = "results/workloads/sem"
STUDY_KEYS = tuple(StudySpec.__dataclass_fields__)
OWN_KEYS = ("trace", "encoder", "metric")
#: REINFORCE values a trial may set (sem.agents.hyperparams' keys; an iteration is one block, so
#: examples_per_update changes nothing and is left out)
REINFORCE_KEYS = ("learning_rate", "discount", "baseline", "trajectories", "update_every", "optimizer",
                  "activation", "contested_only", "mask_actions")
SEARCHABLE = REINFORCE_KEYS + ("hidden", "episode_jobs")
#: validation metrics (train_agent's validation rows) -> True where higher is better
METRICS = {"mean_wait": False, "mean_slowdown": False, "max_wait": False, "utilization": True, "return": True}
DEFAULTS = {"encoder": "sem", "metric": "mean_wait"}
#: what the study never reads, pinned in its rule's spec (``config.study_spec_json``): the agents' extra seeds
#: (a trial trains its own)
STUDY_PINS = {"agents.extra_seeds": []}
#: the tuned agent trains three seeds at the paper's budget (issue 69): ``seed`` and two ``extra_seeds``
TUNED_SEEDS = (0, 1, 2)


def tune_spec(spec: dict) -> tuple[dict, StudySpec]:
    """(the sem-specific keys, defaults filled, the study) of ``sem.tune``; ConfigError names the key."""
    from schedrl.papers.sem.agents import ENCODERS

    raw = spec.get("tune")
    if raw is None:
        raise ConfigError("sem.tune: missing (the study of `schedrl tune sem`)")
    if not isinstance(raw, dict):
        raise ConfigError(f"sem.tune: expected a mapping, got {raw!r}")
    agents = spec.get("agents")
    if not isinstance(agents, dict) or not agents.get("networks"):
        raise ConfigError("sem.agents: missing (a study trains the paper's agents: sem.agents.networks, hyperparams)")
    unknown = sorted(set(raw) - set(STUDY_KEYS) - set(OWN_KEYS))
    if unknown:
        raise ConfigError(f"sem.tune.{unknown[0]}: unknown key (known: {', '.join(OWN_KEYS)} and the study's "
                          f"{', '.join(STUDY_KEYS)})")
    traces = list(agents.get("traces") or agents["networks"])
    own = {**DEFAULTS, "trace": traces[0] if traces else None, **{k: v for k, v in raw.items() if k in OWN_KEYS}}
    study = study_spec({k: v for k, v in raw.items() if k in STUDY_KEYS}, "sem.tune")
    if own["trace"] not in agents["networks"]:
        raise ConfigError(f"sem.tune.trace: '{own['trace']}' is not in sem.agents.networks "
                          f"({', '.join(agents['networks'])})")
    if own["encoder"] not in ENCODERS:
        raise ConfigError(f"sem.tune.encoder: '{own['encoder']}' (choose from: {', '.join(ENCODERS)})")
    if own["metric"] not in METRICS:
        raise ConfigError(f"sem.tune.metric: '{own['metric']}' (choose from: {', '.join(METRICS)})")
    unknown = sorted(set(study.space) - set(SEARCHABLE))
    if unknown:
        raise ConfigError(f"sem.tune.space.{unknown[0]}: not searchable (choose from: {', '.join(SEARCHABLE)})")
    _check_space(spec, own, study.space)
    longest = max(extremes(study.space["episode_jobs"])) if "episode_jobs" in study.space \
        else int(agents["networks"][own["trace"]].get("episode_jobs", 0))
    per_check = study.steps // study.checks
    if longest and per_check < longest:
        raise ConfigError(f"sem.tune.steps: {study.steps} jobs in {study.checks} checks is {per_check} a check, "
                          f"less than an episode of {longest} jobs")
    return own, study


def _check_space(spec: dict, own: dict, space: dict) -> None:
    """Every searched value alone and every pair of extremes makes a valid agent (e.g. no
    ``update_every`` with several trajectories, no ``contested_only`` without masks; ``tune.check_space``)."""
    def build(params: dict) -> None:
        agent_spec(trial_spec(spec, own, params), own, 0).reinforce_config()
        if "episode_jobs" in params:
            _episode_jobs(params["episode_jobs"])

    check_space(space, "sem.tune.space", build, "valid agent")


def _episode_jobs(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"episode_jobs must be a whole number >= 1, got {value!r}")
    return int(value)


def _coerce(name: str, value):
    """``value`` as ``ReinforceConfig``'s field ``name`` holds it (Optuna's numbers, YAML's lists)."""
    if name in ("hidden",):
        if not isinstance(value, list):
            raise ConfigError(f"hidden must be a list of widths, got {value!r}")
        return [int(v) for v in value]
    if name == "episode_jobs":
        return int(value)
    from schedrl.agents.reinforce import ReinforceConfig

    kind = str(ReinforceConfig.__dataclass_fields__[name].type)
    return {"int": int, "float": float, "str": str, "bool": bool}[kind](value)


def trial_spec(spec: dict, own: dict, params: dict[str, Any]) -> dict:
    """``spec`` with a trial's values where sem's rules read them: REINFORCE's in
    ``agents.hyperparams``, ``hidden`` in ``agents.networks.<trace>.hidden.<encoder>``, ``episode_jobs``
    in ``agents.networks.<trace>.episode_jobs``; without the study's block."""
    out = copy.deepcopy(spec)
    out.pop("tune", None)
    agents = out["agents"]
    hp = {**agents.get("hyperparams", {}), **{k: _coerce(k, v) for k, v in params.items() if k in REINFORCE_KEYS}}
    if hp.get("update_every", 0) > 0:  # DRAS's in-episode updates play one trajectory (ReinforceConfig's rule)
        hp.update(trajectories=1, examples_per_update=1)
    agents["hyperparams"] = hp
    net = agents["networks"][own["trace"]]
    if "hidden" in params:
        net["hidden"] = {**net["hidden"], own["encoder"]: _coerce("hidden", params["hidden"])}
    if "episode_jobs" in params:
        net["episode_jobs"] = _coerce("episode_jobs", params["episode_jobs"])
    return out


def agent_spec(spec: dict, own: dict, seed: int, threads: int = 1):
    """The ``AgentSpec`` sem's training rules build for the tuned trace and encoder (``sem train``'s
    arguments from ``_sem_agent_args``) with ``seed``."""
    from schedrl.papers.sem.agents import AgentSpec

    agents = spec["agents"]
    net = agents["networks"][own["trace"]]
    hidden = net["hidden"][own["encoder"]]
    if not isinstance(hidden, list) or not hidden or not all(isinstance(w, int) and w > 0 for w in hidden):
        raise ConfigError(f"hidden must be a list of positive widths, got {hidden!r}")
    return AgentSpec(trace=own["trace"], encoder=own["encoder"], nodes=int(net["nodes"]), k=int(net["k"]),
                     hidden=list(hidden), reward=net["reward"], reward_kwargs=dict(net.get("reward_kwargs") or {}),
                     hyperparams=dict(agents.get("hyperparams", {})), seed=int(seed), threads=int(threads),
                     priority_queues=tuple(sorted(set(net.get("priority_queues", [])))),
                     process=agents.get("process", "hold"))


def split_dir(own: dict, base=SPLIT_ROOT) -> Path:
    """The tuned trace's split folder; InputFileError when a part the study reads is missing."""
    from schedrl.errors import InputFileError

    folder = Path(base) / own["trace"]
    for name in ("train.swf", "val.swf", "split.json"):  # never test.swf
        if not (folder / name).is_file():
            raise InputFileError(folder / name, "missing (the workload_sem_split rule writes it)")
    return folder


class Split:
    """The tuned trace's training and validation parts, read once for every trial (never the test part)."""

    def __init__(self, folder):
        from schedrl.io import read_json
        from schedrl.papers.sem.agents import time_scale_of
        from schedrl.workloads.swf import read_swf

        folder = Path(folder)
        self.manifest = read_json(folder / "split.json")
        self.train, self.val = read_swf(folder / "train.swf"), read_swf(folder / "val.swf")
        self.scale = time_scale_of(self.train)


def validation_value(policy, split: Split, spec, metric: str) -> float:
    """``metric`` of ``policy``'s greedy play on the validation part, higher is better (as
    ``train_agent``'s validation row measures it; a lower-is-better metric negated)."""
    from schedrl.papers.sem.agents import play_greedy

    value = float(play_greedy(policy, split.val, spec, split.scale)[metric])
    return value if METRICS[metric] else -value


class SemLearner:
    """One training seed of a trial (``schedrl.experiments.tune.Learner``): SEM's REINFORCE agent
    trained by ``train_reinforce`` as ``train_agent`` trains it (same env, seed, stream, record), in
    a temporary run folder deleted at ``close`` (a trial's agents are thrown away; the tuned recipe is
    retrained by sem's own rules).

    The step unit is a **training job**: ``advance(n)`` trains the episodes (blocks of
    ``episode_jobs`` jobs, in order) that end within the next ``n`` jobs. ``score()``:
    ``validation_value`` of the agent as it stands (greedy play draws from no RNG, so scoring
    does not change how training goes on)."""

    def __init__(self, split: Split, spec, metric: str, episode_jobs: int | None = None):
        from schedrl.papers.sem.agents import training_episodes

        self.split, self.spec, self.metric = split, spec, metric
        self.episode_jobs, self.episodes = training_episodes(split.manifest, len(split.train), episode_jobs)
        self.jobs, self.done = 0, 0
        self.run_dir = Path(tempfile.mkdtemp(prefix="schedrl-tune-sem-")) / "run"
        self.policy = None

    def advance(self, steps: int) -> None:
        import torch

        from schedrl.agents.reinforce import train_reinforce
        from schedrl.papers.sem.agents import Clock, _episode_env, load_policy

        self.jobs += int(steps)
        target = self.jobs // self.episode_jobs
        if target > self.episodes:
            raise ConfigError(f"sem.tune.steps: {self.jobs} training jobs asked, the training part has "
                              f"{self.episodes * self.episode_jobs} in episodes of {self.episode_jobs}")
        if target == self.done:
            return
        spec, split = self.spec, self.split
        torch.set_num_threads(max(1, int(spec.threads)))
        clock, cursor = Clock(), {"episode": self.done}

        def next_block(iteration: int, rows) -> None:  # train_agent plays block e - 1 in episode e
            cursor["episode"] = iteration

        train_reinforce(lambda: _episode_env(split.train, spec, split.scale, clock, cursor, self.episode_jobs),
                        spec.reinforce_config(), target, spec.seed, self.run_dir, config=self._record(),
                        examples=1, checkpoint_every=target, threads=spec.threads, stream=spec.stream(),
                        on_iteration=next_block)
        self.done = target
        self.policy = load_policy(self.run_dir / "model.zip")

    def _record(self) -> dict:
        """``train_agent``'s run record (its run folder's config.json) for this trial's agent."""
        spec = self.spec
        return {"algo": "deeprm_pg", "paper": "sem", "trace": spec.trace, "encoder": spec.encoder,
                "nodes": spec.nodes, "k": spec.k, "reward": spec.reward, "episode_jobs": self.episode_jobs,
                **({"reward_kwargs": dict(spec.reward_kwargs)} if spec.reward_kwargs else {}),
                "time_scale": self.split.scale, "split": self.split.manifest.get("rows"),
                **({"process": spec.process} if spec.process != "hold" else {}), "conv": "linear"}

    def score(self) -> float:
        from schedrl.papers.sem.agents import untrained_policy

        policy = self.policy if self.policy is not None else untrained_policy(self.spec, self.split.train,
                                                                               self.split.scale)
        return validation_value(policy, self.split, self.spec, self.metric)

    def close(self) -> None:
        shutil.rmtree(self.run_dir.parent, ignore_errors=True)
        self.policy = None


def start_learner(spec: dict, own: dict, params: dict[str, Any], seed: int, threads: int = 1, *,
                  split: Split | None = None, base=SPLIT_ROOT) -> SemLearner:
    """One training seed of a trial: the tuned trace's and encoder's agent with the trial's values
    and ``seed``; ``split``: the trace's parts (read when not given)."""
    run = trial_spec(spec, own, params)
    split = split if split is not None else Split(split_dir(own, base))
    episode_jobs = run["agents"]["networks"][own["trace"]].get("episode_jobs") or None
    return SemLearner(split, agent_spec(run, own, seed, threads), own["metric"], episode_jobs)


def trainer(spec: dict, own: dict, params: dict[str, Any]) -> dict:
    """The trial's REINFORCE as the learning probe trains it (``probes.train_trainer``): its
    hyperparameters and the tuned encoder's hidden layers in the pair_conv network sem trains."""
    return reinforce_trainer(trial_spec(spec, own, params), own["trace"], own["encoder"])


def reinforce_trainer(spec: dict, trace: str, encoder: str) -> dict:
    """The REINFORCE of ``encoder`` on ``trace``: the runs' hyperparameters and that trace's network."""
    agents = spec["agents"]
    return {"kind": "pg", "hyperparams": {**agents["hyperparams"], "network": "pair_conv",
                                          "hidden": [int(w) for w in agents["networks"][trace]["hidden"][encoder]]}}


def recipe_trainers(spec: dict) -> list[tuple[str, dict]]:
    """(player, trainer) of every agent the configured runs train (``schedrl probe``: the learning
    probe of the paper's own recipe): the REINFORCE per encoder with each trace's Table 4 network."""
    from schedrl.papers.sem.normalised import ENCODERS

    return [(f"{label} agent", reinforce_trainer(spec, trace, enc))
            for trace in spec["agents"]["traces"] for enc, label in ENCODERS.items()]


def recipe(spec: dict, own: dict, params: dict[str, Any], result, study: StudySpec, commit: str | None) -> str:
    """The chosen recipe as a config overlay (YAML text with a header saying where it came from)."""
    run = trial_spec(spec, own, params)
    agents, trace, encoder = run["agents"], own["trace"], own["encoder"]
    base = int(spec["agents"].get("seed", 0))
    extra = [s for s in TUNED_SEEDS if s != base][:len(TUNED_SEEDS) - 1]
    body: dict = {"agents": {"extra_seeds": extra}}
    keys = [k for k in params if k in REINFORCE_KEYS]
    if agents["hyperparams"].get("update_every", 0) > 0:  # the one trajectory it trains with
        keys += [k for k in ("trajectories", "examples_per_update") if k not in keys]
    hp = {k: agents["hyperparams"][k] for k in keys}
    if hp:
        body["agents"]["hyperparams"] = hp
    net = {}
    if "hidden" in params:
        net["hidden"] = {encoder: agents["networks"][trace]["hidden"][encoder]}
    if "episode_jobs" in params:
        net["episode_jobs"] = agents["networks"][trace]["episode_jobs"]
    if net:
        body["agents"]["networks"] = {trace: net}
    sign = "" if METRICS[own["metric"]] else "minus "
    return recipe_text({"sem": body}, result, study,
                       title=f"The SEM paper's tuned recipe (issue 69), written by `schedrl tune sem --write-config`; "
                       f"REINFORCE with the {encoder.upper()} encoder tuned on {trace}, hyperparameters applied to "
                       f"every sem agent; a step is a training job",
                       scored=f"{sign}{own['metric']} of greedy play on {trace}'s validation part "
                       "(results/workloads/sem/" + trace + "/val.swf; never the test part)",
                       trials_csv=f"{ROOT}/trials.csv", commit=commit,
                       train="snakemake sem --cores 2 --configfile config/tuned/sem.yml")


def tune(spec: dict, out: str | Path = ROOT, *, threads: int = 1, trials: int | None = None, log=None,
         base=SPLIT_ROOT):
    """Run ``sem.tune``'s study into ``out`` (``trials.csv``); returns (own keys, study, result).
    The trace's training and validation parts are read once and shared by every trial."""
    own, study = tune_spec(spec)
    study = with_trials(study, trials)
    split = Split(split_dir(own, base))
    configured = int(spec["agents"]["networks"][own["trace"]].get("episode_jobs", 0))
    if "episode_jobs" not in study.space and not configured and study.steps // study.checks < int(split.manifest["episode_jobs"]):
        raise ConfigError(f"sem.tune.steps: {study.steps} jobs in {study.checks} checks is {study.steps // study.checks} "
                          f"a check, less than the split's episode of {split.manifest['episode_jobs']} jobs")
    result = run_paper_study("sem", spec, own, study,
                             lambda params, seed: start_learner(spec, own, params, seed, threads, split=split),
                             out, seed_base=int(spec["agents"].get("seed", 0)), log=log, trainer=trainer,
                             pins=STUDY_PINS)
    return own, study, result


def reference_scores(spec: dict, base=SPLIT_ROOT, threads: int = 1) -> list[dict]:
    """What a trial's score means: the same score of the no-learning players on the same validation
    part (``schedrl tune sem --references``): FCFS + EASY and SJF + EASY (the simulator's, as
    ``agents.heuristics`` plays them on the test part), and in the agent's seat, each the mean over
    the study's seeds, uniformly random valid slots (``RandomValidPolicy``) and the untrained network
    of the config's values, built as a trial's seed builds it (``untrained_policy``)."""
    import numpy as np
    import torch

    from schedrl import metrics
    from schedrl.papers.sem.agents import HEURISTICS, RandomValidPolicy, untrained_policy
    from schedrl.sim import ClusterSpec, simulate

    torch.set_num_threads(max(1, int(threads)))
    own, study = tune_spec(spec)
    split = Split(split_dir(own, base))
    run = trial_spec(spec, own, {})
    first = int(spec["agents"].get("seed", 0))
    seeds = [first + k for k in range(study.seeds)]
    where = {"trace": own["trace"], "encoder": own["encoder"], "metric": own["metric"],
             "seeds": " ".join(str(s) for s in seeds)}
    sign = 1.0 if METRICS[own["metric"]] else -1.0
    rows = []
    cluster = ClusterSpec(nodes=int(run["agents"]["networks"][own["trace"]]["nodes"]))
    if own["metric"] != "return":  # a heuristic's schedule has no reward
        for policy in HEURISTICS:
            m = metrics.summary(simulate(split.val, cluster, policy=policy, backfill="easy"), cluster)
            rows.append({"reference": f"{policy.upper()} + EASY", "score": sign * float(m[own["metric"]]), **where})
    state = torch.get_rng_state()
    try:
        random, untrained = [], []
        for s in seeds:
            agent = agent_spec(run, own, s, threads)
            random.append(validation_value(RandomValidPolicy(s, own["encoder"]), split, agent, own["metric"]))
            untrained.append(validation_value(untrained_policy(agent, split.train, split.scale), split, agent,
                                              own["metric"]))
    finally:
        torch.set_rng_state(state)
    rows.append({"reference": "random valid slots", "score": float(np.mean(random)), **where})
    rows.append({"reference": "untrained network", "score": float(np.mean(untrained)), **where})
    return rows
