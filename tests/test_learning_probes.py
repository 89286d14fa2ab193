"""Learning probes (issue 41, item 2): every trainer the papers use must learn a small case whose
better policy is known and depends on the state, before its agents' verdicts count.

The case (``schedrl.experiments.probes.sjf_case``): the pick-and-reserve env on one node, rounds of
four jobs submitted together, one long and three short in random queue order; SJF's held-out mean
slowdown is ~1.5, FCFS's ~6.9, random play's ~7.3, and no fixed slot beats FCFS. Each test trains
one trainer with the settings its paper uses (the pipeline's config and hyperparameter files; only
budget-related values are scaled to the probe, listed per trainer), on training episodes, then on
30 held-out episodes (another seed's job file) requires

* mean slowdown at least ``MARGIN`` (30%) lower than the better of FCFS and uniform-random play;
* a fingerprint that is not a fixed slot (``plays_as`` not "slot k");
* (first seed only, to keep the file within ~5 CPU-minutes) the same trainer with the observation
  zeroed (``ZeroObservation``) does not reach the margin.

A probe that fails is a trainer to fix, not a probe to relax (issue 41).
"""

from __future__ import annotations

import copy
import time

import pytest

from schedrl.config import load_yaml
from schedrl.experiments import probes

SEEDS = [0, 1]
MARGIN = probes.MARGIN


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    return probes.sjf_case(tmp_path_factory.mktemp("probe_case"))


@pytest.fixture(autouse=True)
def cpu_seconds(request):
    """Each probe's CPU time (this process), printed and kept as a test property: the issue asks
    for the probes' total to stay within ~5 CPU-minutes."""
    t0 = time.process_time()
    yield
    used = time.process_time() - t0
    request.node.user_properties.append(("cpu_s", round(used, 1)))
    print(f"\n{request.node.name}: {used:.1f} CPU-s")


@pytest.fixture(scope="module")
def pipeline(repo):
    return load_yaml(repo / "config" / "config.yaml")


def check(case, trained, zeroed=None):
    report = probes.run_probe(case, trained, zeroed)
    print(report.line())
    problems = probes.failures(report, MARGIN)
    assert not problems, f"{'; '.join(problems)} ({report.line()})"
    if zeroed is not None:
        assert report.gain(report.zeroed) < MARGIN  # failures() checks it too; stated for the reader
    return report


def both(case, seed, tmp_path, train):
    """The trained agent and, for the first seed, its zeroed-observation control."""
    trained = train(tmp_path / "run", zeroed=False)
    zeroed = train(tmp_path / "zeroed", zeroed=True) if seed == SEEDS[0] else None
    return trained, zeroed


# -- REINFORCE ------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_probe_deeprm_pg(case, seed, tmp_path):
    """DeepRM's REINFORCE, hyperparams/deeprm_pg.yaml (one hidden layer of 20, RMSProp 1e-3, time
    baseline, no masks). Probe scale: 20 fixed training episodes, 10 trajectories each (DeepRM: 20)
    and one update per episode (DeepRM: per 10), 8 iterations (160 updates)."""
    from schedrl.agents.hyperparams import load_hyperparams

    hp = {**load_hyperparams("deeprm_pg"), "trajectories": 10, "examples_per_update": 1}
    check(case, *both(case, seed, tmp_path,
                      lambda d, zeroed: probes.train_pg(case, hp, 8, 20, seed, d, zeroed=zeroed)))


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_probe_sem_reinforce(case, pipeline, seed, tmp_path):
    """The DRAS/SEM REINFORCE as src/schedrl/papers/sem runs it: config.yaml's sem.hyperparams
    (one trajectory, discount 0.6, normalised returns, Adam 0.01, masks), the pair_conv network
    with SEM's Theta layers; SEM encoder. Probe scale: 30 training episodes, 10 passes."""
    sem = pipeline["sem"]["agents"]
    hp = {**copy.deepcopy(sem["hyperparams"]), "network": "pair_conv",
          "hidden": list(sem["networks"]["theta"]["hidden"]["sem"])}
    check(case, *both(case, seed, tmp_path,
                      lambda d, zeroed: probes.train_pg(case, hp, 10, 30, seed, d, zeroed=zeroed)))


# -- Stable-Baselines3 through schedrl's train entry point -----------------------------------------
#: algo -> probe-scale steps (MaskablePPO is runtime's beyond-the-paper variant, issue 38; seed 0 is +12%
#: at 10k); the same budgets probe a tuned recipe (tests/test_learning_probes_tuned.py)
SB3 = probes.SB3_STEPS


@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
@pytest.mark.parametrize("algo", list(SB3))
def test_probe_sb3(case, algo, seed, tmp_path):
    """SB3 A2C, PPO, DQN and TRPO with their hyperparameter files' default blocks (the SB3
    report's: Stable-Baselines v2 defaults), trained by schedrl.experiments.train.train (what
    `schedrl train` runs). The papers use plain PPO (DeepRM report, mdp, runtime); MaskablePPO is
    runtime's beyond-the-paper variant, probed so that its "learns nothing" rests on a trainer that
    can learn. The papers' own blocks (mdp's Table 2 PPO, runtime's 1024-512-256 PPO, deeprm's
    per-variant rates) go through the same probe with `schedrl probe` (config/recipe-probes.csv,
    tests/test_recipe_probes.py)."""
    from schedrl.agents.hyperparams import load_hyperparams

    steps = SB3[algo]
    hp = load_hyperparams(algo, None)
    check(case, *both(case, seed, tmp_path,
                      lambda d, zeroed: probes.train_sb3(case, algo, hp, steps, seed, d, zeroed=zeroed)))


# -- DFP --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS, ids=[f"seed{s}" for s in SEEDS])
def test_probe_dfp(case, pipeline, seed, tmp_path):
    """DFP as src/schedrl/papers/mrsch trains it: config.yaml's mrsch.dfp (batch 64, an update
    every 4 decisions, epsilon decayed per update, DFP's offsets and temporal weights). The
    measurement is the return so far (mrsch's is utilisation, which one node leaves at 1), the
    goal constant [1]. Probe scale: state layers [256, 128] (MRSch: [4000, 1000]), 300 episodes."""
    hp = {k: v for k, v in pipeline["mrsch"]["dfp"].items() if k != "select_on_validation"}
    hp["state_hidden"] = [256, 128]
    check(case, *both(case, seed, tmp_path,
                      lambda d, zeroed: probes.train_dfp(case, hp, 300, seed, d, zeroed=zeroed)))


# -- the probe itself -----------------------------------------------------------------------------
def test_probe_case_separates_known_policies(case):
    """The case is fair: SJF (the known better, state-dependent policy) passes with room to spare,
    a fixed-slot picker fails both on the margin and as "slot 1", and the references are as the
    module docstring says (SJF's mean slowdown under half of FCFS's)."""
    import numpy as np

    refs = probes.references(case)
    assert refs["sjf"] < 0.5 * refs["fcfs"] and refs["sjf"] < 0.5 * refs["random"]
    sjf = probes.probe_report(case, probes.sjf_policy)
    assert not probes.failures(sjf) and sjf.gain() > MARGIN + 0.2

    def slot1(obs, env):
        mask = env.unwrapped.action_masks()
        return 1 if mask[1] else int(np.argmax(mask))

    fixed = probes.probe_report(case, slot1)
    problems = probes.failures(fixed)
    assert fixed.fingerprint["plays_as"] == "slot 1" and len(problems) == 2


# -- REINFORCE where most decisions have one valid action (issue 37) --------------------------------
#: DRAS's REINFORCE (REFERENCE-FACTS; sem's default before issue 37): one trajectory per update,
#: returns normalised over every decision, discount 0.6, Adam 0.01, masked window
DRAS_PG = {"discount": 0.6, "baseline": "normalise", "optimizer": "adam", "learning_rate": 0.01,
           "activation": "relu", "trajectories": 1, "examples_per_update": 1, "mask_actions": True}


@pytest.fixture(scope="module")
def sparse_case(tmp_path_factory):
    return probes.sparse_sjf_case(tmp_path_factory.mktemp("sparse_case"))


def test_probe_sem_reinforce_mostly_uncontested(sparse_case, pipeline, tmp_path):
    """Issue 37 item 1 on ``sparse_sjf_case`` (57% of decisions with one valid slot; SEM's Theta
    env has 72%): config.yaml's sem hyperparams (advantages over contested decisions only, several
    trajectories per update) pass on two seeds; DRAS's settings learn less on seed 0 than either
    (on the AVX-512 machines they fail the margin there, +<30%; on AVX2 ones, whose float sums
    differ, +46% against SEM's +61% / +65%: with one trajectory the outcome rests on the draws).
    Pair_conv with SEM's Theta layers, 30 training episodes, 10 passes."""
    sem = pipeline["sem"]["agents"]
    net = {"network": "pair_conv", "hidden": list(sem["networks"]["theta"]["hidden"]["sem"])}
    hp = {**copy.deepcopy(sem["hyperparams"]), **net}
    assert hp.get("contested_only") and hp["trajectories"] > 1
    gains = [check(sparse_case, probes.train_pg(sparse_case, hp, 10, 30, seed, tmp_path / f"sem{seed}")).gain()
             for seed in SEEDS]
    old = probes.run_probe(sparse_case, probes.train_pg(sparse_case, {**DRAS_PG, **net}, 10, 30, 0, tmp_path / "dras"))
    print("DRAS's settings:", old.line())
    assert old.gain() < min(gains)
