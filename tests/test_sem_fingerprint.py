"""SEM/DRAS agents (issue 41): the test play writes a behaviour fingerprint, the no-learning
references (random valid play, untrained network) play the same test jobs, fingerprints.csv has
one row per agent, and the claims carry the references' verdicts."""

import json

import numpy as np
import pandas as pd
import pytest

from schedrl.papers.sem import agents as A
from schedrl.papers.sem import claims as C
from schedrl.papers.sem import figures as F
from schedrl.report.claims import VERDICTS
from toy_trees import sem_split

HP = {"discount": 0.6, "baseline": "normalise", "optimizer": "adam", "learning_rate": 0.01,
      "trajectories": 1, "examples_per_update": 1, "mask_actions": True}


def _dense_split(path, n_jobs=90, nodes=32):
    """Arrivals dense enough that several jobs wait: the test part has contested decisions."""
    return sem_split(path, n_jobs, nodes, seed=5, span=3_000, run_low=300, sizes=(2, 4, 8, 16),
                     req_times=(1_200, 3_600, 7_200))


def _spec(enc, seed=0):
    return A.AgentSpec(trace="theta", encoder=enc, nodes=32, k=4, hidden=[16, 8], reward="dras_theta",
                       hyperparams=HP, window=10, seed=seed)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Both encodings trained 3 episodes and tested, each with its two references."""
    root = tmp_path_factory.mktemp("sem_fp")
    split = _dense_split(root / "split")
    for enc in A.ENCODERS:
        A.train_agent(split, _spec(enc), root / "agents" / "theta" / enc)
        for kind in A.REFERENCES:
            A.reference_agent(split, _spec(enc), kind, root / "agents" / "theta" / enc / f"ref_{kind}")
    return root, split


def test_test_play_writes_fingerprint_and_references(played):
    root, _ = played
    folder = root / "agents" / "theta" / "sem"
    fp = json.loads((folder / "fingerprint.json").read_text())
    assert fp["agent"] == "SEM theta seed 0" and fp["kind"] == "trained" and fp["seed"] == 0
    assert fp["split"] == "test" and fp["episodes"] == 1
    assert 0 < fp["contested"] <= fp["decisions"]
    slots = [fp[f"agree_slot_{k}"] for k in range(10)]
    assert sum(slots) == pytest.approx(1.0) and 0 < fp["chance"] < 1
    assert all(0 <= fp[f"agree_{h}"] <= 1 for h in ("fcfs", "sjf", "smallest_area", "largest"))
    assert fp["hidden_units"] > 0 and 0 <= fp["dead_share"] <= 1 and fp["entropy_median"] >= 0
    test = json.loads((folder / "test.json").read_text())
    assert test["seed"] == 0 and test["agent"] == "trained"
    for kind in A.REFERENCES:
        ref = folder / f"ref_{kind}"
        r_fp = json.loads((ref / "fingerprint.json").read_text())
        assert r_fp["kind"] == kind and r_fp["contested"] > 0
        r_test = json.loads((ref / "test.json").read_text())
        assert r_test["agent"] == kind and r_test["jobs"] == test["jobs"] and r_test["cpu_s"] > 0
        jobs = pd.read_csv(ref / "test_jobs.csv")  # the same test jobs as the trained agent's
        assert jobs["job_id"].tolist() == pd.read_csv(folder / "test_jobs.csv")["job_id"].tolist()
    assert "hidden_units" in json.loads((folder / "ref_untrained" / "fingerprint.json").read_text())
    assert "hidden_units" not in json.loads((folder / "ref_random" / "fingerprint.json").read_text())


def test_untrained_is_the_seeds_initial_network(played):
    _, split = played
    from schedrl.workloads.swf import read_swf

    train = read_swf(split / "train.swf")
    scale = A.time_scale_of(train)
    a, b = (A.untrained_policy(_spec("sem"), train, scale) for _ in range(2))
    c = A.untrained_policy(_spec("sem", seed=1), train, scale)
    wa, wb, wc = (np.concatenate([p.detach().numpy().ravel() for p in x.net.parameters()]) for x in (a, b, c))
    assert np.array_equal(wa, wb) and not np.array_equal(wa, wc)
    # the random references of two encodings (and seeds) draw from independent streams
    mask = np.ones(10, dtype=bool)
    players = {(e, s): A.RandomValidPolicy(s, e) for e in A.ENCODERS for s in (0, 1)}
    draws = {key: tuple(p.choose(mask) for _ in range(20)) for key, p in players.items()}
    assert len(set(draws.values())) == 4


def test_slot_1_picker_is_found_as_slot_1(played):
    _, split = played
    from schedrl.experiments.fingerprint import describe, fingerprint
    from schedrl.workloads.swf import read_swf

    class Slot1:
        def choose(self, mask):
            return 1 if mask[1] else 0

    train, test = read_swf(split / "train.swf"), read_swf(split / "test.swf")
    m = A.play_greedy(Slot1(), test, _spec("sem"), A.time_scale_of(train), record=True)
    fp = fingerprint(m["recorder"].decisions)
    assert fp["plays_as"] == "slot 1" and fp["agree_slot_1"] == 1.0
    assert describe(fp).startswith("plays as slot 1 (100% of")


def test_fingerprints_csv_one_row_per_agent(played, tmp_path):
    root, _ = played
    frame = F.write_fingerprints(root / "agents", ["theta"], tmp_path / "fingerprints.csv")
    assert len(frame) == 6  # 2 encodings x (trained, random, untrained)
    assert list(frame.columns[:5]) == ["agent", "kind", "trace", "encoder", "seed"]
    assert sorted(frame["kind"]) == ["random", "random", "trained", "trained", "untrained", "untrained"]
    assert frame["agent"].is_unique
    assert len(pd.read_csv(tmp_path / "fingerprints.csv")) == 6


def _rl_rows(agents):
    rows = C.agent_claims_rows(agents, None, 0.05, 2) + C.comparison_rows(agents, [])[0]
    return C.add_references(rows, agents, 0.05, 2)


def test_claims_carry_references_and_random_play_is_uninformative(played):
    root, _ = played
    agents = F.load_agents(root / "agents", ["theta"])
    rows = {r["claim_id"]: r for r in _rl_rows(agents)}
    gap = rows["fig9_metric_gap_theta"]
    assert gap["random_verdict"] in VERDICTS and gap["untrained_verdict"] in VERDICTS
    assert gap["uninformative"] in ("yes", "no") and "random play:" in gap["note"]
    assert rows["fig8_convergence_theta"].get("random_verdict", "") == ""  # a learning curve: no reference
    assert "random_verdict" not in rows["table4_theta_sem"]  # not about what an agent plays
    # the trained agents replaced by the random references: every claim that holds is uninformative
    for run in agents["theta"]["runs"].values():
        ref = run["references"]["random"]
        run.update(test=ref["test"], test_jobs=ref["test_jobs"], fingerprint=ref["fingerprint"])
    rows = [r for r in _rl_rows(agents) if r["claim_id"].startswith(C.REFERENCE_CLAIMS)]
    assert rows
    for r in rows:
        assert r["random_verdict"] == r["verdict"]
        assert r["uninformative"] == ("yes" if r["verdict"] in ("reproduced", "partly reproduced") else "no")


def test_plays_as_named_in_the_note():
    fp = {"agent": "SEM theta seed 0", "contested": 424, "plays_as": "slot 1", "top_slot": 1,
          "top_slot_share": 1.0, "agree_fcfs": 0.1, "agree_sjf": 0.2, "agree_smallest_area": 0.1, "agree_largest": 0.1}
    val = pd.DataFrame({"episode": [1, 2, 3], "return": [1.0, 2.0, 2.0]})
    test = {"utilization": 0.8, "mean_wait": 100.0, "max_wait": 900.0, "mean_slowdown": 2.0, "jobs": 20,
            "stand_in": False, "wall_s": 1.0}
    run = {"validation": val, "test": test, "timing": {"trainer_s": 1.0}, "fingerprint": fp, "references": {}}
    agents = {"theta": {"runs": {"sem": run, "dras": {**run, "fingerprint": None}}}}
    rows = {r["claim_id"]: r for r in _rl_rows(agents)}
    said = "SEM theta seed 0 plays as slot 1 (100% of 424 contested decisions)"
    for cid in ("fig8_convergence_theta", "fig9_metric_gap_theta"):
        assert rows[cid]["plays_as"] == said and said in rows[cid]["note"]
    assert rows["fig9_metric_gap_theta"]["random_verdict"] == ""  # no reference played: no verdict
    assert rows["fig9_metric_gap_theta"]["uninformative"] == ""
