"""The learning probe of the papers' own recipes (``schedrl probe``, config/recipe-probes.csv): each
distinct trainer the default and paper-budget runs train is probed once, a failing one again at 4x the
probe's budget, and the status table says where a default or paper-budget agent's trainer fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.errors import InputFileError
from schedrl.experiments import probes
from schedrl.report import recipe_probes as rp


def rows(*items):
    return pd.DataFrame([{"paper": p, "scale": s, "player": pl, "trainer": t, "kind": "sb3", "algo": "ppo",
                          "recipe": "lr 0.0003", "probe": probe, "date": "2026-12-06", "commit": "abc", "machine": "faster kind", "cpu_s": "1"}
                         for p, s, pl, t, probe in items], columns=rp.COLUMNS)


def test_lookup_takes_the_failing_finding_and_a_variant_its_base_players():
    frame = rows(("sem", "default", "SEM agent", "a", "passed (gain +60%)"),
                 ("sem", "default", "SEM agent", "b", "failed (gain +5%; seed 0: ...)"),
                 ("mdp", "paper-budget", "PPO image-like", "c", "passed at 4x the probe's budget (gain +69%)"))
    assert rp.recipe_probe_of(frame, "sem", "default", "SEM agent").startswith("failed")  # one trace's network fails
    assert rp.recipe_probe_of(frame, "sem", "default", "SEM agent (DRAS's process)").startswith("failed")
    assert rp.recipe_probe_of(frame, "mdp", "paper-budget", "PPO image-like").startswith("passed at 4x")
    assert rp.recipe_probe_of(frame, "mdp", "default", "PPO image-like") is None  # another scale
    assert rp.recipe_probe_of(frame, "sem", "default", "DRAS agent") is None
    assert rp.recipe_probe_of(None, "sem", "default", "SEM agent") is None


def test_merge_replaces_a_probed_paper_scale_whole(tmp_path):
    old = rows(("mdp", "default", "PPO compact", "x", "failed (...)"), ("mdp", "paper-budget", "PPO image-like", "x", "ok"),
               ("runtime", "default", "PPO Baseline", "y", "passed (...)"))
    new = rows(("mdp", "default", "PPO image-like", "z", "passed (...)"))
    merged = rp.merge_recipe_probes(old, new)
    assert list(zip(merged["paper"], merged["scale"], merged["player"])) == [
        ("mdp", "default", "PPO image-like"), ("mdp", "paper-budget", "PPO image-like"), ("runtime", "default", "PPO Baseline")]
    path = tmp_path / "p.csv"
    rp.write_recipe_probes(merged, path)
    assert rp.read_recipe_probes(path).equals(merged)
    assert rp.read_recipe_probes(tmp_path / "none.csv").empty
    (tmp_path / "bad.csv").write_text("paper,scale\nmdp,default\n")
    with pytest.raises(InputFileError, match="bad.csv.*lack column"):
        rp.read_recipe_probes(tmp_path / "bad.csv")


def test_a_failing_recipe_is_probed_again_at_four_times_the_budget(monkeypatch, tmp_path):
    calls = []

    def fake(trainer, work_dir, seeds=probes.TRAINER_SEEDS, margin=probes.MARGIN, budget=1):
        calls.append(budget)
        ok = budget > 1
        return probes.TrainerProbe(passed=ok, gains=[0.6, 0.5] if ok else [0.1, 0.5],
                                   problems=[] if ok else ["seed 0: 10% better, needs 30%"], lines=["seed 0: ..."], budget=budget)

    monkeypatch.setattr(probes, "probe_trainer", fake)
    found = probes.probe_recipe({"kind": "sb3", "algo": "ppo", "hyperparams": {}}, tmp_path)
    assert calls == [1, probes.RETRY_BUDGET] and found.passed
    assert found.summary() == "passed at 4x the probe's budget (gain +60%, +50% on seeds 0, 1)"
    assert found.lines == ["x1 seed 0: ...", "x4 seed 0: ..."]
    calls.clear()
    monkeypatch.setattr(probes, "probe_trainer", lambda *a, budget=1, **k: fake(*a, budget=2, **k))  # passes at once
    assert probes.probe_recipe({}, tmp_path).passed and calls == [2]


def test_probe_command_probes_each_distinct_recipe_once(monkeypatch, tmp_path, capsys):
    """mdp's paper-budget runs train one PPO recipe for both MDPs: one probe, two rows."""
    seen = []

    def fake(trainer, work_dir, seeds=probes.TRAINER_SEEDS):
        seen.append(probes.trainer_id(trainer))
        return probes.TrainerProbe(passed=False, gains=[0.1, 0.2], problems=["seed 0: needs 30%"], lines=[], budget=4)

    monkeypatch.setattr(probes, "probe_recipe", fake)
    out = tmp_path / "probes.csv"
    assert main(["probe", "mdp", "--scale", "paper-budget", "--work", str(tmp_path / "w"), "--write", str(out)]) == 0
    frame = rp.read_recipe_probes(out)
    assert len(seen) == 1 and set(frame["player"]) == {"PPO image-like", "PPO compact + sparse + reduced"}
    assert set(frame["trainer"]) == set(seen) and (frame["probe"] == "failed at 4x the probe's budget (gain +10%, +20%; "
                                                                    "seed 0: needs 30%)").all()
    assert sorted(frame["cpu_s"].astype(str)) == ["", "0"]  # a recipe's CPU once
    assert "mdp paper-budget PPO image-like" in capsys.readouterr().out


def test_probe_command_bad_paper_is_one_line(repo):
    done = subprocess.run([str(Path(sys.executable).parent / "schedrl"), "probe", "nosuch"], capture_output=True,
                          text=True, cwd=repo)
    assert done.returncode != 0 and "probe: no paper 'nosuch'" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_committed_probes_cover_every_recipe_the_configs_train():
    """config/recipe-probes.csv holds a row for every (paper, scale, player, trainer) the default and
    paper-budget configs train: a recipe changed in a config is a trainer not yet probed (rerun
    ``schedrl probe --write``)."""
    from schedrl.commands.probe import CONFIGS, trainers_of
    from schedrl.papers import PAPERS

    committed = rp.read_recipe_probes()
    have = set(zip(committed["paper"], committed["scale"], committed["player"], committed["trainer"]))
    want = {(r["paper"], r["scale"], r["player"], r["id"]) for r in trainers_of(list(PAPERS), list(CONFIGS))}
    assert not want - have, f"not probed (run `schedrl probe --write`): {sorted(want - have)[:3]}"
    assert not have - want, f"probes of recipes no config trains: {sorted(have - want)[:3]}"
    assert committed["probe"].str.match(r"^(passed|failed)").all()


@pytest.mark.parametrize("probe, clause", [
    ("passed (gain +60%, +55% on seeds 0, 1)", "the recipe's trainer passes the learning probe."),
    ("passed at 4x the probe's budget (gain +69%)", "the recipe's trainer passes the learning probe at 4x the probe's budget."),
    ("failed at 4x the probe's budget (gain +1%; seed 0: ...)", "fails the learning probe, so this is no verdict on what"),
    (None, "the recipe's trainer not yet through the learning probe."),
])
def test_the_headroom_line_of_a_paper_recipe_says_what_its_probe_found(probe, clause):
    """Where the best agent is the paper's own recipe, its line says whether that trainer learns the
    probe's case: a failing one is no verdict on what RL can do in the paper's setting."""
    from schedrl.report.normalised import headroom_sentences

    best = {"paper": "runtime", "scale": "paper-budget", "player": "PPO Baseline", "role": "agent", "seeds": 3,
            "workloads": 2, "iqm": -0.1, "iqm_lo": -0.2, "iqm_hi": 0.05}
    found = rows(("runtime", "paper-budget", "PPO Baseline", "t", probe)) if probe else rows()
    (line,) = headroom_sentences(pd.DataFrame([best]), recipe_probes=found)
    assert "the paper's recipe; no tuned agent yet, " in line and clause in line


def test_a_recipe_in_a_few_words():
    """What tells the papers' recipes apart, by hand: runtime's shared trunk and rollout, a DQN's buffer."""
    trunk = {"kind": "sb3", "algo": "ppo", "hyperparams": {
        "learning_rate": 3e-4, "n_steps": 512, "n_envs": 8, "batch_size": 512, "n_epochs": 4,
        "policy_kwargs": {"shared_net": [1024, 512, 256], "activation_fn": "tanh"}}}
    assert probes.trainer_text(trunk) == ("lr 0.0003, 1024-512-256 shared by actor and critic, 512 steps x 8 envs, "
                                          "minibatch 512, epochs 4")
    dqn = {"kind": "sb3", "algo": "dqn", "hyperparams": {"learning_rate": 1e-3, "buffer_size": 10_000,
                                                         "policy_kwargs": {"net_arch": [64, 64]}}}
    assert probes.trainer_text(dqn) == "lr 0.001, 64-64 layers, buffer 10000"
    assert probes.trainer_id(trunk) != probes.trainer_id(dqn)
    assert probes.trainer_id(trunk) == probes.trainer_id({**trunk, "hyperparams": dict(reversed(trunk["hyperparams"].items()))})


def test_the_readme_figure_marks_an_agent_whose_trainer_fails(monkeypatch, tmp_path):
    """docs/where-rl-stands.csv's verdict of a paper-budget agent whose recipe fails the probe says so."""
    from schedrl.report.front import front_rows

    path = tmp_path / "probes.csv"
    rp.write_recipe_probes(rows(("runtime", "paper-budget", "PPO Baseline", "t", "failed at 4x the probe's budget (+0%)")),
                           path)
    monkeypatch.setattr(rp, "FILE", path)
    players = pd.DataFrame([{"paper": "runtime", "scale": "paper-budget", "player": "PPO Baseline", "role": "agent",
                             "seeds": 3, "workloads": 1, "iqm": -1.9, "iqm_lo": -2.4, "iqm_hi": -1.6,
                             "p_beats_best_heuristic": 0.0, "recipe_probe": ""}])
    (verdict,) = front_rows("runtime", players)["verdict"]
    assert verdict == "below random valid play (trainer fails probe)"


def test_a_run_looks_up_its_players_probes_by_trainer_id():
    """runtime's default PPO (all three players; probed at its reward's return scale) and mdp's Table 2
    PPO (at 4x) pass the committed probe; smoke's smaller runtime network is a recipe no one probed."""
    from schedrl.commands import load_spec
    from schedrl.papers import recipe_trainers

    def of(paper, config):
        return rp.run_probes(recipe_trainers(paper, load_spec(paper, config)))

    runtime = of("runtime", "config/config.yaml")
    assert set(runtime) == {"PPO Baseline", "PPO Proposal (NN1)", "PPO Proposal (NN2)"}
    assert all(v.startswith("passed") for v in runtime.values())
    assert {t["reward_scale"] for _, t in recipe_trainers("runtime", load_spec("runtime", "config/config.yaml"))} == {0.01}
    assert all(v.startswith("passed") for v in of("mdp", "config/config.yaml").values())
    assert set(of("runtime", "config/smoke.yaml").values()) == {None}


def test_a_player_with_one_unprobed_trainer_is_not_probed_and_one_failing_fails():
    trainers = [("SEM agent", {"lr": 1}), ("SEM agent", {"lr": 2}), ("DRAS agent", {"lr": 1}), ("DRAS agent", {"lr": 3})]
    ids = [probes.trainer_id(t) for _, t in trainers]
    frame = rows(("sem", "default", "SEM agent", ids[0], "passed (gain +60%)"),
                 ("sem", "default", "DRAS agent", ids[3], "failed (gain +1%; ...)"))
    assert rp.run_probes(trainers, frame) == {"SEM agent": None, "DRAS agent": "failed (gain +1%; ...)"}


def test_claims_of_a_run_whose_trainers_all_fail_name_it_as_their_cause():
    from schedrl.report.claims import TRAINER_FAILS, make_claims, with_trainer_probes

    claims = [{"claim_id": "heur", "verdict": "not reproduced"},  # no reference, no convergence: not RL
              {"claim_id": "rl_n", "verdict": "not reproduced", "random_verdict": "not reproduced", "note": "5 vs 7"},
              {"claim_id": "rl_p", "verdict": "partly reproduced", "converged": "converged"},
              {"claim_id": "rl_r", "verdict": "reproduced", "untrained_verdict": "reproduced"},
              {"claim_id": "rl_c", "verdict": "not comparable", "random_verdict": "not comparable"},
              {"claim_id": "rl_told", "verdict": "not reproduced", "random_verdict": "reproduced", "cause": "setup"}]
    claims = [{"paper": "runtime", "claim": c["claim_id"], "paper_value": "", "ours": "", "note": "", **c} for c in claims]
    failing = {"PPO Baseline": "failed (gain +0%)", "PPO Proposal (NN1)": "failed at 4x the probe's budget (...)"}
    got = make_claims(with_trainer_probes(claims, failing)).set_index("claim_id")
    assert got.loc["heur", "cause"] == "disagrees" and got.loc["heur", "note"] == ""
    assert got.loc["rl_n", "cause"] == got.loc["rl_p", "cause"] == TRAINER_FAILS
    assert got.loc["rl_n", "note"].startswith("5 vs 7; the trainer of PPO Baseline, PPO Proposal (NN1) fails")
    assert got.loc["rl_r", "cause"] == "" and "fails the learning probe" in got.loc["rl_r", "note"]
    assert got.loc["rl_c", "cause"] == "paper value not comparable"
    assert got.loc["rl_told", "cause"] == "setup"  # a cause the paper's code knows stays
    # one player's trainer passing (or unprobed): the claims cannot be pinned on the failing one
    for other in ("passed (gain +60%)", None):
        assert with_trainer_probes(claims, {**failing, "PPO Proposal (NN2)": other}) == claims
    assert with_trainer_probes(claims, {}) == claims


def test_every_cause_has_its_words_in_the_report():
    from schedrl.report.claims import CAUSES
    from schedrl.report.render import CAUSE_SHORT, CAUSE_TEXT

    assert set(CAUSE_TEXT) == set(CAUSE_SHORT) == set(CAUSES)


def test_a_trainer_is_trained_at_the_reward_scale_it_gives(monkeypatch, tmp_path):
    """``reward_scale`` wraps the case's training env in ``ScaledReward`` wherever the trainer is trained
    (``train_trainer``: the probe, the studies' gate, the tests), and the recipe's words and id say so."""
    trainer = {"kind": "sb3", "algo": "ppo", "hyperparams": {"learning_rate": 3e-4}, "reward_scale": 0.01}
    case = probes.sjf_case(tmp_path / "case")

    def first_reward(c):  # an episode's return, the lowest valid slot picked throughout
        env, total, done = c.env(), 0.0, False
        env.reset(seed=0)
        while not done:
            _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(probes._mask(env))[0]))
            total, done = total + float(reward), terminated or truncated
        return total

    scaled = probes.scaled_case(case, trainer)
    assert scaled.wrappers[-1] == {"schedrl.experiments.probes:ScaledReward": {"scale": 0.01}}
    assert first_reward(case) != 0 and first_reward(scaled) == pytest.approx(0.01 * first_reward(case))
    assert probes.scaled_case(case, {**trainer, "reward_scale": 1.0}) is case
    seen = []
    monkeypatch.setattr(probes, "train_sb3", lambda c, *a, **k: seen.append(c.wrappers))
    probes.train_trainer(case, trainer, 0, tmp_path / "run")
    assert seen == [scaled.wrappers]
    assert probes.trainer_text(trainer).endswith("probed on rewards x0.01")
    assert "probed on" not in probes.trainer_text({**trainer, "reward_scale": 1.0})
    assert probes.trainer_id(trainer) != probes.trainer_id({k: v for k, v in trainer.items() if k != "reward_scale"})
