"""What MRSch's trained agents do (issue 41): behaviour fingerprints and no-learning references.

This module holds what an evaluation records and how the references play; the tables and the
claims' references built from them are in ``schedrl.papers.mrsch.references``.

Fingerprints. The test and in-sample evaluations (``evaluation.evaluate_frame`` with a ``Record``)
record every decision of the DFP agents (MLP, CNN; ``dfp_view``: inputs are (observation,
measurements, goal)) and of the scalar-RL baseline (REINFORCE, ``reinforce_view``), and write one
``fingerprint.json``-style file per agent into ``<eval dir>/fingerprints/<method>[-<reference>].json``
with the agent's identity and ``asked_per_job`` (decisions / jobs: issue 35 found the agent asked
a fraction of the times the paper's simulator asks it). Budget checkpoints are not fingerprinted.
The GA and FCFS are heuristics and play outside the env: no fingerprint of their own, but every
agent's fingerprint says how often it starts a job the window optimiser would start at that
decision (``agree_ga``, beside ``ga_set_share``: what uniform play agrees by expectation).

References. The same evaluation plays each trained agent's seat twice more with no learning:
``random`` (a seeded uniform choice among the env's valid actions) and ``untrained`` (the same
network built with the training seed, no update), with the same job sets, window, protocol and
timing. Their metrics, per-job rows and goal traces go to ``<eval dir>/references/``. The claims
are then computed again on a copy of the results tree in which every trained agent's rows (MRSch,
its CNN variant and scalar RL at once) are those of the reference (``reference_verdicts``), and
each RL claim row gets ``random_verdict`` / ``untrained_verdict`` / ``uninformative`` / ``plays_as``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from schedrl.experiments import fingerprint as fpm

REFERENCES = ("random", "untrained")
AGENTS = ("mrsch", "mrsch_cnn", "scalar_rl")  # the trained agents of an evaluation
NAMES = {"mrsch": "MRSch DFP (MLP)", "mrsch_cnn": "MRSch DFP (CNN)", "scalar_rl": "scalar RL (REINFORCE)"}
FINGERPRINT_DIR, REFERENCE_DIR = "fingerprints", "references"


# -- the references' policies ----------------------------------------------------------------------
def random_picker(seed_parts):
    """``pick(obs, info, env)``: a uniform choice among the env's valid actions (any action when
    none is valid), from a generator seeded with ``seed_parts``."""
    rng = np.random.default_rng(seed_parts)

    def pick(_obs, _info, env):
        mask = np.asarray(env.unwrapped.action_masks(), dtype=bool)
        valid = np.flatnonzero(mask) if mask.any() else np.arange(len(mask))
        return int(rng.choice(valid))

    return pick


def untrained_dfp(trained, seed: int):
    """The trained DFP agent's architecture and config, initialised as ``train_dfp`` initialises
    it with ``seed`` (``torch.manual_seed`` then the constructor), never updated."""
    import torch

    from schedrl.agents.dfp import DFPAgent

    torch.manual_seed(int(seed))
    agent = DFPAgent(trained.obs_dim, trained.n_meas, trained.n_actions, trained.cfg)
    agent.net.eval()
    return agent


def untrained_reinforce(trained, seed: int):
    """The scalar-RL policy's network as ``train_reinforce`` builds it with ``seed``, never updated."""
    import torch

    from schedrl.agents.reinforce import ReinforcePolicy, build_network

    meta = trained.meta
    torch.manual_seed(int(seed))
    net = build_network(int(np.prod(trained.obs_shape)), int(trained.n_actions), meta["hidden"], meta["activation"],
                        meta.get("network", "mlp"))
    return ReinforcePolicy(net, trained.head, trained.n_actions, trained.obs_shape, meta, trained.mask_actions)


# -- what one evaluation records -----------------------------------------------------------------
@dataclass
class Record:
    """Recorders per played agent (kept across the job sets of an in-sample evaluation) and the
    references' rows; ``evaluate_frame`` fills it, ``write_record`` writes it."""

    recorders: dict = field(default_factory=dict)  # label -> (FingerprintRecorder, view, meta)
    jobs: dict = field(default_factory=dict)  # label -> jobs played
    ref_metrics: list = field(default_factory=list)
    ref_jobs: list = field(default_factory=list)
    ref_goals: list = field(default_factory=list)
    part: int = 0  # the job set being played (in-sample: one evaluate_frame per set)

    def recorder(self, label: str, view_fn, meta: dict, dfp: bool):
        if label not in self.recorders:
            # DFP scores need (obs, measurements, goal); play_picker fills the last two per decision
            rec = fpm.FingerprintRecorder(None, policy_input=(lambda o, e: None) if view_fn is None else None,
                                          window_optimum=True)
            rec.dfp = dfp
            self.recorders[label] = (rec, view_fn, meta)
            self.jobs[label] = 0
        return self.recorders[label][0]


def label_of(method: str, reference: str = "") -> str:
    return f"{method}-{reference}" if reference else method
