"""MRSch fingerprints and no-learning references (issue 41): a tiny evaluation writes each trained
agent's fingerprint (with how often it is asked per job) and plays its seat by a random and an
untrained policy; the fingerprint table has one row per agent; the claims carry the references'
verdicts and mark a claim that random play also reproduces as uninformative."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from schedrl.papers.mrsch import claims
from schedrl.papers.mrsch import evaluation as mev
from schedrl.papers.mrsch import fingerprints as fps
from schedrl.papers.mrsch import layout as ml
from schedrl.papers.mrsch import references as refs_mod
from schedrl.report.claims import make_claims
from schedrl.workloads.swf import SWF_FIELDS, write_swf
from test_mrsch_experiments import _results_tree, _spec


def _busy_tree(base, n=30):
    """S1's train and test splits on a 16-node machine, arriving within two hours: a queue forms,
    so the agents face contested decisions."""
    rng = np.random.default_rng(0)
    for part in ("train", "test"):
        frame = pd.DataFrame({"job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.uniform(0, 7200, n)).round(),
                              "wait_time": -1, "run_time": rng.integers(600, 4000, n), "alloc_procs": rng.integers(2, 9, n),
                              "req_time": 4000, "bb_request": rng.integers(1, 5, n).astype(float)})
        frame["req_procs"] = frame["alloc_procs"]
        for col in SWF_FIELDS:
            if col not in frame:
                frame[col] = -1
        frame.attrs["header"] = {"MaxNodes": "16", "MaxProcs": "16", "MaxBurstBufferUnits": "8"}
        (base / "S1").mkdir(parents=True, exist_ok=True)
        write_swf(frame, base / "S1" / f"{part}.swf")
    return base


def _tiny_models(root, frame, window):
    """A small untrained DFP network as every DFP model of group two, and a REINFORCE policy."""
    import torch

    from schedrl.agents.dfp import DFPAgent, DFPConfig
    from schedrl.agents.reinforce import ReinforceConfig, make_policy

    env = ml.make_env(frame, window)
    obs, info = env.reset(options={"jobs": frame})
    torch.manual_seed(3)
    cfg = DFPConfig(state_hidden=[16], state_out=8, meas_hidden=[8], goal_hidden=[8], stream_hidden=16,
                    offsets=[1, 2], offset_weights=[1.0, 0.5])
    agent = DFPAgent(obs.size, len(info["utilization"]), int(env.action_space.n), cfg)
    for state in ("mlp", "cnn"):
        d = ml.dfp_dir(root, "two", state, ml.PAPER_ORDERING)
        d.mkdir(parents=True)
        agent.save(d / "model.zip")
    ml.scalar_dir(root, "two").mkdir(parents=True)
    make_policy(env, ReinforceConfig.from_dict({"hidden": [8], "mask_actions": True})).save(
        ml.scalar_dir(root, "two") / "model.zip")


def test_evaluation_writes_fingerprints_and_references(tmp_path):
    base = _busy_tree(tmp_path / "wl")
    spec = ml.check_spec(_spec(workloads=["S1"], extra_seeds=[], fig8={"workload": "S1", "hours": 12},
                               window=4, eval={"max_jobs": 0},
                               dfp={**_spec()["dfp"], "select_on_validation": False}))
    root = tmp_path / "res"
    _tiny_models(root, ml.read_part("S1", "test", base), 4)
    record = fps.Record()
    metrics, _, _ = mev.evaluate_workload(spec, "S1", root=root, base=base, record=record)
    out = ml.eval_dir(root, "S1")
    paths = refs_mod.write_record(record, out, "test")
    labels = {p.stem for p in paths}
    assert labels == {fps.label_of(m, r) for m in fps.AGENTS for r in ("", *fps.REFERENCES)}
    fp = json.loads((out / "fingerprints" / "mrsch.json").read_text())
    row = metrics.set_index("method").loc["mrsch"]
    assert fp["jobs"] == 30 and fp["decisions"] == row["decisions"] > 0
    assert fp["asked_per_job"] == fp["decisions"] / 30 and 0 <= fp["contested"] <= fp["decisions"]
    assert fp["agent"].startswith("MRSch DFP (MLP) S1 seed 0") and fp["split"] == "test"
    assert fp["contested"] > 0 and 0 <= fp["agree_fcfs"] <= 1
    assert 0 <= fp["agree_ga"] <= 1 and 0 < fp["ga_set_share"] <= 1  # the window optimiser beside every agent
    assert fp["greedy_matches_played"] == 1.0  # dfp_view's scores ran: their argmax is the played action
    # the untrained reference is the model's architecture, so its fingerprint has the scores too
    assert "spread_across_slots" in json.loads((out / "fingerprints" / "scalar_rl-untrained.json").read_text())
    refs = pd.read_csv(out / "references" / "metrics.csv")
    assert set(zip(refs["method"], refs["reference"])) == {(m, r) for m in fps.AGENTS for r in fps.REFERENCES}
    assert (refs["jobs"] == 30).all()
    jobs = pd.read_csv(out / "references" / "jobs.csv")
    assert "jobset" not in jobs  # the test split is one table, as the main jobs.csv
    assert len(jobs) == 30 * len(fps.AGENTS) * len(fps.REFERENCES)
    assert set(pd.read_csv(out / "references" / "goals.csv")["reference"]) == set(fps.REFERENCES)
    table = refs_mod.fingerprint_csv([out / "fingerprints"], tmp_path / "fingerprints.csv")
    assert len(table) == 9 and table["agent"].is_unique and {"asked_per_job", "method", "reference"} <= set(table)


def _references_like(root, spec, random_as, untrained_as):
    """references/ beside every evaluation of a synthetic tree: the trained agents' rows copied as
    ``random`` and replaced by ``untrained_as``'s rows (a method without learning) as ``untrained``."""
    for s in ml.seeds(spec):
        extra = None if s == int(spec["seed"]) else s
        for split in ("test", "train"):
            for w in spec["workloads"]:
                d = ml.eval_dir(root, w, split, extra)
                (d / "references").mkdir()
                for name in ("metrics.csv", "jobs.csv", "goals.csv"):
                    if not (d / name).is_file():
                        continue
                    f = pd.read_csv(d / name)
                    if "method" not in f:  # a goal trace: MRSch's
                        f = f.assign(method="mrsch")
                    agents = f[f["method"].isin(fps.AGENTS)]
                    parts = []
                    for ref, source in (("random", random_as), ("untrained", untrained_as)):
                        if source is None or name == "goals.csv":
                            parts.append(agents.assign(reference=ref))
                            continue
                        base = pd.read_csv(ml.eval_dir(root, w, split) / name)  # an extra seed's has MRSch alone
                        src = base[base["method"] == source]
                        parts += [src.assign(method=m, reference=ref) for m in agents["method"].unique()]
                    pd.concat(parts).to_csv(d / "references" / name, index=False)


def test_claims_carry_the_references_and_flag_uninformative(tmp_path):
    spec = ml.check_spec(_spec())
    _results_tree(tmp_path, spec)
    # random plays exactly as the trained agents; the untrained network as FCFS
    _references_like(tmp_path, spec, None, "fcfs")
    fp = {"method": "mrsch", "reference": "", "group": "two", "split": "test", "decisions": 100, "contested": 80,
          "agree_fcfs": 0.99, "agree_sjf": 0.2, "agree_smallest_area": 0.2, "agree_largest": 0.1,
          "agree_slot_0": 0.99, "agree_slot_1": 0.01}
    pd.DataFrame([fp, {**fp, "method": "scalar_rl", "agree_fcfs": 0.5, "agree_slot_0": 0.5, "agree_slot_1": 0.5}]).to_csv(tmp_path / "fingerprints.csv", index=False)
    rows = {r["claim_id"]: r for r in claims.claims_rows(spec, tmp_path)}
    frame = make_claims(list(rows.values()))  # the columns check
    assert (frame["uninformative"] != "").any()
    for cid, r in rows.items():
        if refs_mod.claim_agents(cid) is None:
            assert not any(r.get(c) for c in ("random_verdict", "uninformative", "plays_as")), cid
            continue
        assert r["random_verdict"] == r["verdict"], cid  # random = trained here
        assert r["untrained_verdict"], cid
        held = r["verdict"] in ("reproduced", "partly reproduced")
        assert r["uninformative"] == ("yes" if held else "no"), cid
    assert rows["fig7-best"]["verdict"] == "reproduced" and rows["fig7-best"]["untrained_verdict"] == "not reproduced"
    assert rows["fig7-best"]["plays_as"] == "plays as FCFS (99% of 80 contested decisions)"
    assert rows["fig7-best"]["note"].endswith("plays as FCFS (99% of 80 contested decisions)")
    assert rows["fig5-scalar-over-ga-s3"]["plays_as"] == ""  # scalar RL's own fingerprint
    assert rows["fig10-best"]["plays_as"] == ""  # no group-three fingerprint in the table
    assert np.isin(frame["random_verdict"], ["", "reproduced", "partly reproduced", "not reproduced", "not comparable"]).all()
