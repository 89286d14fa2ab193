"""config/seed/<n>.yaml trains seed n alone (issue 68): a paper-budget or tuned run split into one run
per seed, each fitting a session, recorded separately and merged by `schedrl record --normalised`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedrl.commands import spec_text
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.mdp import layout as ml
from schedrl.papers.runtime import experiments as rx

CONFIG = Path(__file__).resolve().parents[1] / "config"


def _spec(paper: str, loader, *files: str) -> dict:
    return loader(spec_text(paper, [str(CONFIG / f) for f in files]))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scale", [["paper-budget.yaml"], ["paper-budget.yaml", "tuned/{paper}.yml"]])
def test_a_seed_overlay_leaves_every_run_but_its_seed_and_nothing_else(seed, scale):
    def files(paper, with_seed):
        return [f.format(paper=paper) for f in scale] + ([f"seed/{seed}.yaml"] if with_seed else [])

    for paper, loader, seeds_of in (
            ("deeprm", dl.load_spec, lambda s: [(a, o, n) for v in s["variants"] for a, o, n in dl.agent_runs(s, v)]),
            ("mdp", ml.load_spec, lambda s: [(r.variant, r.scenario, r.seed) for r in ml.runs(s)]),
            ("runtime", lambda t: rx.load_spec(t, agents=True), lambda s: [(m, w, g, d, n) for m, w, g, n, d, _ in rx.runs(s)])):
        full = seeds_of(_spec(paper, loader, *files(paper, False)))
        one = seeds_of(_spec(paper, loader, *files(paper, True)))
        assert one and all(run[-1] == seed for run in one), paper
        # the same runs as the full scale's of that seed: where the scale has no such seed, the same
        # runs as its first seed's, with this seed
        base = [r for r in full if r[-1] == seed] or [(*r[:-1], seed) for r in full if r[-1] == full[0][-1]]
        assert sorted(one) == sorted(base), paper


def test_seed_overlays_differ_only_in_the_seed():
    texts = [(CONFIG / "seed" / f"{n}.yaml").read_text() for n in range(3)]
    assert texts[1] == texts[0].replace("0", "1") and texts[2] == texts[0].replace("0", "2")
    assert json.loads(spec_text("deeprm", [str(CONFIG / "paper-budget.yaml"), str(CONFIG / "seed/2.yaml")]))["seeds"] == [2]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scale", [["paper-budget.yaml"], ["paper-budget.yaml", "mrsch-three-seeds.yaml"],
                                   ["paper-budget.yaml", "tuned/mrsch.yml"]])
def test_mrschs_seed_overlay_trains_the_same_runs_with_that_agent_seed_alone(seed, scale):
    """mrsch's seeds are not a list of runs but the base agents' seed (agent_seed) and extra_seeds:
    the overlay leaves the DFP runs and the job sets' seed as they are and trains seed n alone."""
    from schedrl.papers.mrsch import layout as mrl

    full = _spec("mrsch", mrl.load_spec, *scale)
    one = _spec("mrsch", mrl.load_spec, *scale, f"seed/{seed}.yaml")
    assert mrl.seeds(one) == [seed] and mrl.seed_runs(one) == []
    assert mrl.dfp_runs(one) == mrl.dfp_runs(full) and one["seed"] == full["seed"]
    assert {k: v for k, v in one.items() if k not in ("agent_seed", "extra_seeds")} == {
        k: v for k, v in full.items() if k not in ("agent_seed", "extra_seeds")}
