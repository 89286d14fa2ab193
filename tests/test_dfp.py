"""DFP agent (schedrl.agents.dfp): network shapes, target bookkeeping, and two toy tasks whose best
action is known (a fixed goal; a goal that changes which action is best)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium import spaces

from schedrl.agents.dfp import DFPAgent, DFPConfig, Replay, _Episode, build_net, train_dfp
from schedrl.agents.runs import RunFolder
from schedrl.errors import ConfigError

# action -> measurement increment (2 measurements)
GAINS = np.array([[1.0, 0.0], [0.0, 1.0], [0.3, 0.3]], dtype=np.float32)


class ToyEnv(gym.Env):
    """Each action adds GAINS[a] to the measurements; the goal is drawn per episode (or fixed);
    action 0 is masked on odd steps."""

    def __init__(self, length: int = 30, goal=None):
        self.observation_space = spaces.Box(0, 1, (4,), np.float32)
        self.action_space = spaces.Discrete(3)
        self.length, self.fixed_goal = length, goal

    def _info(self):
        mask = np.ones(3, dtype=bool)
        mask[0] = self.t % 2 == 0
        return {"measurements": self.m.copy(), "goal": self.g.copy(), "action_mask": mask}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t, self.m = 0, np.zeros(2, dtype=np.float32)
        if self.fixed_goal is not None:
            self.g = np.asarray(self.fixed_goal, dtype=np.float32)
        else:
            self.g = self.np_random.dirichlet([1.0, 1.0]).astype(np.float32)
        return self.np_random.random(4).astype(np.float32), self._info()

    def step(self, a):
        assert self._info()["action_mask"][a], "a masked action was taken"
        self.m = self.m + GAINS[a]
        self.t += 1
        return self.np_random.random(4).astype(np.float32), 0.0, self.t >= self.length, False, self._info()


SMALL = dict(state_hidden=[32], state_out=16, meas_hidden=[16], goal_hidden=[16], stream_hidden=32,
             offsets=[1, 2], offset_weights=[1.0, 0.5], learning_rate=3e-3, batch_size=32, replay_size=4000,
             update_every=1, min_replay=32, epsilon_decay=0.85, epsilon_min=0.05)


def test_paper_network_shapes_and_action_normalisation():
    cfg = DFPConfig()
    net = build_net(11_410, 2, 10, cfg)
    state_layers = [m for m in net.state if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in state_layers] == [(11_410, 4000), (4000, 1000), (1000, 512)]
    assert [m.out_features for m in net.meas if isinstance(m, torch.nn.Linear)] == [128, 128, 128]
    assert [m.out_features for m in net.goal if isinstance(m, torch.nn.Linear)] == [128, 128, 128]
    small = build_net(40, 2, 5, DFPConfig(**SMALL))
    out = small(torch.rand(3, 40), torch.rand(3, 2), torch.rand(3, 2))
    assert out.shape == (3, 5, 4)  # actions x (2 offsets x 2 measurements)
    # the action stream is normalised: prediction minus expectation averages to 0 over actions
    x = torch.rand(3, 40)
    m, g = torch.rand(3, 2), torch.rand(3, 2)
    pred = small(x, m, g)
    j = torch.cat([small.state(x), small.meas(m), small.goal(g)], 1)
    assert torch.allclose((pred - small.expectation(j).unsqueeze(1)).mean(dim=1), torch.zeros(3, 4), atol=1e-6)


def test_cnn_state_module_builds():
    cfg = DFPConfig(**{**SMALL, "state_module": "cnn", "cnn_channels": [4], "cnn_kernel": 4, "cnn_stride": 2})
    net = build_net(40, 2, 3, cfg)
    assert net(torch.rand(2, 40), torch.rand(2, 2), torch.rand(2, 2)).shape == (2, 3, 4)
    assert any(isinstance(m, torch.nn.Conv1d) for m in net.state)


def test_targets_are_future_changes_and_past_the_end_is_masked():
    run = _Episode([1, 2], 1)
    for m in [0.0, 1.0, 3.0]:
        run.meas.append(np.array([m], np.float32))
        run.action.append(0)
        run.obs.append(None)
        run.goal.append(None)
    ready = list(run.ready(np.array([6.0], np.float32), done=False))
    # horizon 2: with measurements m0..m3 known, steps 0 and 1 have both offsets
    assert [t for t, _ in ready] == [0, 1]
    assert ready[0][1][0].tolist() == [1.0, 3.0] and ready[1][1][0].tolist() == [2.0, 5.0]
    rest = list(run.ready(np.array([6.0], np.float32), done=True))
    assert [t for t, _ in rest] == [2]
    target, valid = rest[0][1]
    assert target.tolist() == [3.0, 0.0] and valid.tolist() == [1.0, 0.0]


def test_act_masks_and_follows_the_goal_batched():
    agent = DFPAgent(4, 2, 3, DFPConfig(**SMALL))
    obj = agent.objectives(np.zeros((5, 4)), np.zeros((5, 2)), np.ones((5, 2)))
    assert obj.shape == (5, 3)
    mask = np.array([[False, True, False]] * 5)
    assert (agent.act(np.zeros((5, 4)), np.zeros((5, 2)), np.ones((5, 2)), mask) == 1).all()
    rng = np.random.default_rng(0)
    explored = agent.act(np.zeros((200, 4)), np.zeros((200, 2)), np.ones((200, 2)),
                         np.array([[True, False, True]] * 200), epsilon=1.0, rng=rng)
    assert set(explored.tolist()) == {0, 2}


def test_exploring_rows_skip_the_network_and_draw_as_before():
    """Rows that explore never read the network (all exploring: no forward pass at all), and the
    random stream is drawn as when every row was scored first: the same actions for a seed."""
    agent = DFPAgent(4, 2, 3, DFPConfig(**SMALL))
    obs, meas, goal = np.random.default_rng(1).random((50, 4)), np.zeros((50, 2)), np.ones((50, 2))
    mask = np.array([[True, False, True]] * 50)
    greedy = agent.act(obs, meas, goal, mask)
    rng = np.random.default_rng(7)
    got = agent.act(obs, meas, goal, mask, epsilon=0.4, rng=rng)
    ref_rng = np.random.default_rng(7)  # the order of draws before: explore flags, then one choice per explored row
    explore = ref_rng.random(50) < 0.4
    want = greedy.copy()
    for b in np.flatnonzero(explore):
        want[b] = ref_rng.choice(np.flatnonzero(mask[b]))
    assert 0 < explore.sum() < 50 and (got == want).all()

    def no_network(*_):
        raise AssertionError("the network was asked for an exploring row")

    agent.objectives = no_network
    assert set(agent.act(obs, meas, goal, mask, epsilon=1.0, rng=rng).tolist()) <= {0, 2}


def test_input_layer_keeps_nn_linear_values_and_loads_either_layout():
    """The state module's first layer holds its weight as (in, out) for a faster gradient: the same
    initial values and outputs as nn.Linear's, and an (out, in) file loads into it."""
    from schedrl.agents.dfp import InputLinear

    torch.manual_seed(3)
    ref = torch.nn.Linear(40, 6)
    torch.manual_seed(3)
    layer = InputLinear(40, 6)
    assert layer.weight.shape == (40, 6) and torch.equal(layer.weight, ref.weight.t())
    x = torch.rand(5, 40)
    assert torch.allclose(layer(x), ref(x), atol=1e-6)
    fresh = InputLinear(40, 6)
    fresh.load_state_dict(ref.state_dict())  # the layout written before
    assert torch.equal(fresh.weight, ref.weight.t())
    fresh.load_state_dict(layer.state_dict())
    assert torch.equal(fresh.weight, layer.weight)
    loss = layer(x).pow(2).sum()
    loss.backward()
    assert layer.weight.grad.shape == (40, 6) and layer.weight.grad.is_contiguous()


_MALLINFO_PROBE = """
import ctypes, sys
import numpy as np
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info
if sys.argv[1] == "keep":
    from schedrl.agents.allocator import keep_freed_blocks
    assert keep_freed_blocks()
before = libc.mallinfo2()
block = np.ones(64 << 20, dtype=np.uint8)
during = libc.mallinfo2()
del block
after = libc.mallinfo2()
print((during.hblkhd - before.hblkhd) >> 20, (after.fordblks - before.fordblks) >> 20)
"""


def test_keeping_freed_blocks_keeps_a_large_block_on_the_heap():
    """What train_dfp's allocator setting changes, read off glibc's own counters (mallinfo2) in fresh
    processes: by default a 64 MiB array is a fresh mmap and its pages go back to the kernel when freed;
    with keep_freed_blocks() it comes from the heap (no mapping) and stays there, free, for the next
    update's temporaries."""
    import ctypes
    import platform
    import subprocess
    import sys

    from schedrl.agents.allocator import keep_freed_blocks

    assert isinstance(keep_freed_blocks(), bool)  # a plain no-op where it cannot take effect
    if platform.libc_ver()[0] != "glibc" or not hasattr(ctypes.CDLL("libc.so.6"), "mallinfo2"):
        pytest.skip("glibc >= 2.33 (mallinfo2) only")

    def probe(mode):
        out = subprocess.run([sys.executable, "-c", _MALLINFO_PROBE, mode], env={}, capture_output=True,
                             text=True, check=True).stdout
        return [int(v) for v in out.split()]  # MiB newly mapped while held, MiB kept free after

    mapped, kept = probe("default")
    assert mapped >= 64 and kept < 1
    mapped, kept = probe("keep")
    assert mapped == 0 and kept >= 63


def test_config_errors():
    with pytest.raises(ConfigError, match="state_module"):
        DFPConfig.from_dict({"state_module": "rnn"})
    with pytest.raises(ConfigError, match="unknown"):
        DFPConfig.from_dict({"lr": 1})
    with pytest.raises(ConfigError, match="offsets"):
        DFPConfig.from_dict({"offsets": [1, 2], "offset_weights": [1.0]})
    # the types of the defaults (hyperparams.check_types): a list's item named by its index, widths >= 1
    with pytest.raises(ConfigError, match=r"'state_hidden\[1\]' must be >= 1"):
        DFPConfig.from_dict({"state_hidden": [64, 0]})
    with pytest.raises(ConfigError, match="'offsets' must be a list"):
        DFPConfig.from_dict({"offsets": "1,2"})
    with pytest.raises(ConfigError, match=r"'offset_weights\[0\]' must be a finite number"):
        DFPConfig.from_dict({"offset_weights": [True, 0, 0, 0, 0, 1]})
    with pytest.raises(ConfigError, match="'state_out' must be an integer"):
        DFPConfig.from_dict({"state_out": 2.5})
    cfg = DFPConfig.from_dict({"batch_size": 32.0, "state_hidden": [64.0, 32], "incremental_input": True})
    assert (cfg.batch_size, cfg.state_hidden, cfg.incremental_input) == (32, [64, 32], True)
    assert type(cfg.batch_size) is int and type(cfg.state_hidden[0]) is int


def test_replay_ring():
    r = Replay(3, 2, 1, 2)
    for i in range(5):
        r.add(np.full(2, i), [i], [1], i, np.zeros(2), np.ones(2))
    assert r.n == 3 and sorted(r.action.tolist()) == [2, 3, 4]


def _greedy(agent, goal):
    obs = np.random.default_rng(1).random((20, 4)).astype(np.float32)
    return agent.act(obs, np.zeros((20, 2)), np.tile(goal, (20, 1)))


def test_learns_the_known_best_action(tmp_path):
    # fixed goal (1, 0.2): action 0 gains 1.0, action 1 0.2, action 2 0.36 -> action 0 is best
    torch.set_num_threads(1)
    res = train_dfp(lambda: ToyEnv(goal=[1.0, 0.2]), DFPConfig(**SMALL), [None] * 25, seed=0,
                    run_dir=tmp_path / "run")
    agent = DFPAgent.load(RunFolder(tmp_path / "run").model_file)
    assert (_greedy(agent, [1.0, 0.2]) == 0).all()
    pred = agent.predict_changes(np.zeros((1, 4)), np.zeros((1, 2)), [[1.0, 0.2]])[0, :, 0]  # offset 1
    assert np.allclose(pred, GAINS, atol=0.15)
    assert res.steps == 25 * 30 and (tmp_path / "run" / "losses.csv").exists()
    # a rerun with the same config finds the run finished
    assert train_dfp(lambda: ToyEnv(goal=[1.0, 0.2]), DFPConfig(**SMALL), [None] * 25, seed=0,
                     run_dir=tmp_path / "run").skipped


def test_changing_the_goal_changes_the_action(tmp_path):
    torch.set_num_threads(1)
    train_dfp(lambda: ToyEnv(), DFPConfig(**SMALL), [None] * 30, seed=1, run_dir=tmp_path / "run")
    agent = DFPAgent.load(RunFolder(tmp_path / "run").model_file)
    assert (_greedy(agent, [1.0, 0.0]) == 0).all()  # only measurement 0 counts
    assert (_greedy(agent, [0.0, 1.0]) == 1).all()  # only measurement 1 counts
    assert (_greedy(agent, [-1.0, -1.0]) == 2).all()  # both to be minimised: the smallest gain


class _Interrupting(ToyEnv):
    """Raises KeyboardInterrupt (Ctrl-C) at the 10th step of its third episode, once."""

    fired = False

    def reset(self, **kw):
        self.episode = getattr(self, "episode", -1) + 1
        return super().reset(**kw)

    def step(self, a):
        if self.episode == 2 and self.t == 10 and not _Interrupting.fired:
            _Interrupting.fired = True
            raise KeyboardInterrupt
        return super().step(a)


def test_seeded_runs_repeat_and_an_interrupted_run_resumes(tmp_path):
    import json

    torch.set_num_threads(1)
    cfg = DFPConfig(**SMALL)
    for name in ("a", "b"):
        train_dfp(lambda: ToyEnv(), cfg, [None] * 4, seed=3, run_dir=tmp_path / name)
    assert (tmp_path / "a" / "losses.csv").read_text() == (tmp_path / "b" / "losses.csv").read_text()
    with pytest.raises(KeyboardInterrupt):
        train_dfp(lambda: _Interrupting(), cfg, [None] * 4, seed=3, run_dir=tmp_path / "c", checkpoint_every=1)
    assert [n for n, _ in RunFolder(tmp_path / "c", prefix="episode_", suffix=".pt").checkpoints()] == [1, 2]
    res = train_dfp(lambda: _Interrupting(), cfg, [None] * 4, seed=3, run_dir=tmp_path / "c", checkpoint_every=1)
    timing = json.loads((tmp_path / "c" / "timing.json").read_text())
    assert timing["resumed_from_episode"] == 2 and res.steps == 4 * 30 and timing["episodes"] == 4


def test_replay_rewinds_to_its_mark_and_its_file_round_trips(tmp_path):
    r = Replay(4, 2, 1, 2)
    for i in range(3):
        r.add(np.full(2, i), [i], [1], i, np.full(2, i), np.ones(2))
    r.mark()
    kept = ({f: getattr(r, f).copy() for f in Replay.FIELDS}, r.pos, r.n)
    for i in range(3, 9):  # wraps: every row overwritten, some twice
        r.add(np.full(2, i), [i], [1], i, np.full(2, i), np.ones(2))
    r.rewind()
    # the rows held at the mark (the row past them, empty then, is not part of the memory)
    assert (r.pos, r.n) == kept[1:] and all(np.array_equal(getattr(r, f)[:3], kept[0][f][:3]) for f in Replay.FIELDS)
    r.save(tmp_path / "m.npy")
    q = Replay(4, 2, 1, 2)
    q.load(tmp_path / "m.npy")
    assert (q.pos, q.n) == (r.pos, r.n)
    assert all(np.array_equal(getattr(q, f)[:q.n], getattr(r, f)[:r.n]) for f in Replay.FIELDS)
    a, b = r.sample(5, np.random.default_rng(0)), q.sample(5, np.random.default_rng(0))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    r.save(tmp_path / "again.npy")  # byte-stable: an interrupted run's file equals the uninterrupted one's
    assert (tmp_path / "m.npy").read_bytes() == (tmp_path / "again.npy").read_bytes()
    with pytest.raises(ValueError, match="size 4"):
        Replay(5, 2, 1, 2).load(tmp_path / "m.npy")


class _InterruptAt(ToyEnv):
    """Ctrl-C at its ``at``-th step (counted over every env of the process), once."""

    at, count = 0, 0

    def step(self, a):
        _InterruptAt.count += 1
        if _InterruptAt.count == _InterruptAt.at:
            raise KeyboardInterrupt
        return super().step(a)


@pytest.mark.parametrize("at", [5, 75, 100, 130])  # episode 1; 3 (a checkpoint off the grid); 4; 5 (of 6)
def test_an_interrupted_run_resumes_to_the_uninterrupted_files(tmp_path, at):
    """Ctrl-C anywhere (SIGTERM is the same): the checkpoint of the last finished episode, with the
    replay memory rewound to it (a small replay that wraps), the env's RNG (ToyEnv draws every
    observation from it) and every counter; the rerun writes the files of an uninterrupted run."""
    import json

    torch.set_num_threads(1)
    cfg = DFPConfig(**{**SMALL, "replay_size": 100, "batch_size": 16, "min_replay": 16})
    train_dfp(lambda: ToyEnv(), cfg, [None] * 6, seed=3, run_dir=tmp_path / "a", checkpoint_every=2)
    _InterruptAt.at, _InterruptAt.count = at, 0
    with pytest.raises(KeyboardInterrupt):
        train_dfp(lambda: _InterruptAt(), cfg, [None] * 6, seed=3, run_dir=tmp_path / "b", checkpoint_every=2)
    train_dfp(lambda: ToyEnv(), cfg, [None] * 6, seed=3, run_dir=tmp_path / "b", checkpoint_every=2)
    files = sorted(str(p.relative_to(tmp_path / "a")) for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(tmp_path / "b")) for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert not [f for f in files if f.endswith(".memory.npy")]  # none kept once the run is finished
    for rel in files:
        if rel not in ("timing.json", "command.txt"):  # wall times; one line per invocation
            assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel
    resumes = json.loads((tmp_path / "b" / "timing.json").read_text())["resumes"]
    assert len(resumes) == (at > 30) and all(r["exact"] for r in resumes)  # before episode 1 ends: no checkpoint


def test_a_checkpoint_without_its_memory_resumes_inexactly_and_says_so(tmp_path, capsys):
    """A checkpoint written before issue 70 (no memory file, no RNG states) still resumes, with an
    empty replay memory; one stderr line and ``timing.json`` say the run is not the uninterrupted one."""
    import json

    torch.set_num_threads(1)
    cfg = DFPConfig(**SMALL)
    _InterruptAt.at, _InterruptAt.count = 70, 0
    with pytest.raises(KeyboardInterrupt):
        train_dfp(lambda: _InterruptAt(), cfg, [None] * 4, seed=3, run_dir=tmp_path / "c", checkpoint_every=1)
    ckpt = tmp_path / "c" / "checkpoints"
    state = torch.load(ckpt / "episode_2.pt", weights_only=False)
    for key in ("format", "global_rng", "env_rng"):
        state.pop(key)
    torch.save(state, ckpt / "episode_2.pt")
    for path in ckpt.glob("*.memory.npy"):
        path.unlink()
    capsys.readouterr()
    res = train_dfp(lambda: ToyEnv(), cfg, [None] * 4, seed=3, run_dir=tmp_path / "c", checkpoint_every=1)
    lines = [x for x in capsys.readouterr().err.splitlines() if "replay memory" in x]
    assert len(lines) == 1 and "episode_2.pt" in lines[0] and "differ" in lines[0]
    timing = json.loads((tmp_path / "c" / "timing.json").read_text())
    assert timing["resumes"] == [{"from": 2, "exact": False}] and res.steps == 4 * 30


def test_kept_models_deleted_by_the_workflow_come_back_on_a_resume(tmp_path):
    """A workflow deletes a rule's declared outputs (the keep_at models) before rerunning it; a run
    resumed past their episode puts them back from checkpoints/."""
    cfg = DFPConfig(**SMALL)
    _InterruptAt.at, _InterruptAt.count = 100, 0  # in episode 4
    with pytest.raises(KeyboardInterrupt):
        train_dfp(lambda: _InterruptAt(length=30), cfg, [None] * 5, 0, tmp_path / "run", checkpoint_every=1,
                  keep_at={1: ["a.zip"], 2: ["b.zip"]})
    kept = (tmp_path / "run" / "a.zip").read_bytes(), (tmp_path / "run" / "b.zip").read_bytes()
    (tmp_path / "run" / "a.zip").unlink()
    (tmp_path / "run" / "b.zip").unlink()
    train_dfp(lambda: ToyEnv(), cfg, [None] * 5, 0, tmp_path / "run", checkpoint_every=1,
              keep_at={1: ["a.zip"], 2: ["b.zip"]})
    assert ((tmp_path / "run" / "a.zip").read_bytes(), (tmp_path / "run" / "b.zip").read_bytes()) == kept
    # finished: the final checkpoint alone (a rerun reads no other; the budget shares' models are
    # the keep_at ones, so no full checkpoint of ~0.6 GB at MRSch's size stays for them)
    folder = RunFolder(tmp_path / "run", prefix="episode_", suffix=".pt")
    assert [n for n, _ in folder.checkpoints()] == [5]
    assert sorted(p.name for p in folder.checkpoint_dir.iterdir() if p.suffix != ".json") == \
        ["a.zip", "b.zip", "episode_5.pt"]


def test_epsilon_over_the_run_and_kept_models(tmp_path):
    """epsilon_per="run" lowers epsilon linearly over the episodes (every episode explores), and
    keep_at saves the model after the given episode counts."""
    cfg = DFPConfig(**{**SMALL, "epsilon_per": "run", "epsilon_min": 0.0})
    r = train_dfp(lambda: ToyEnv(length=8), cfg, [None] * 4, 0, tmp_path / "run",
                  keep_at={1: ["a.zip", "b.zip"], 2: ["c.zip"]})
    import pandas as pd

    curve = pd.read_csv(r.run_dir / "learning_curve.csv")
    assert curve["epsilon"].round(6).tolist() == [1.0, 0.75, 0.5, 0.25]  # the epsilon each episode played at
    assert all((r.run_dir / n).is_file() for n in ("a.zip", "b.zip", "c.zip"))
    # 8 steps per episode, updates from 32 transitions on: the kept models predate every update,
    # the final one does not
    first, last = DFPAgent.load(r.run_dir / "a.zip"), DFPAgent.load(r.run_dir / "model.zip")
    x = np.random.default_rng(0).random((1, 4))
    assert np.allclose(first.objectives(x, [0, 0], [1, 0]), DFPAgent.load(r.run_dir / "c.zip").objectives(x, [0, 0], [1, 0]))
    assert not np.allclose(first.objectives(x, [0, 0], [1, 0]), last.objectives(x, [0, 0], [1, 0]))
    with pytest.raises(ConfigError, match="epsilon_per"):
        DFPConfig(**{**SMALL, "epsilon_per": "job"}).check()


def test_epsilon_run_inverse_is_the_reference_schedule_stretched_over_the_run(tmp_path):
    """epsilon_per="run_inverse": the DFP reference's 0.02 + 145,000 / (step + 150,000) over its
    820,000 batches, as a share of the run (episode e of E plays at x = e / E)."""
    import pandas as pd

    from schedrl.agents.dfp import INVERSE_B

    start = 0.02 + 145_000 / 150_000  # the reference's value at step 0
    cfg = DFPConfig(**{**SMALL, "epsilon_per": "run_inverse", "epsilon_start": start, "epsilon_min": 0.02})
    r = train_dfp(lambda: ToyEnv(length=8), cfg, [None] * 4, 0, tmp_path / "run")
    curve = pd.read_csv(r.run_dir / "learning_curve.csv")
    ref = [0.02 + 145_000 / (x * 820_000 + 150_000) for x in (0, 0.25, 0.5, 0.75)]
    assert curve["epsilon"].tolist() == pytest.approx(ref, rel=1e-5)  # the curve keeps 6 digits
    assert INVERSE_B == pytest.approx(150 / 820)
    # the final epsilon (after the run) is the reference's at its last batch, ~0.17
    snap = torch.load(sorted((r.run_dir / "checkpoints").glob("*.pt"))[-1], weights_only=False)
    assert snap["epsilon"] == pytest.approx(0.02 + 145_000 / 970_000, rel=1e-9)


def test_replay_ratio_one_sample_per_decision(tmp_path):
    """update_every = batch_size trains one batch per batch_size decisions: ~1 replayed sample per
    transition, the reference's ratio (64 per 8 steps of 8 simulators)."""
    import json

    cfg = DFPConfig(**{**SMALL, "batch_size": 8, "update_every": 8, "min_replay": 8})
    r = train_dfp(lambda: ToyEnv(length=16), cfg, [None] * 4, 0, tmp_path / "run")
    timing = json.loads((r.run_dir / "timing.json").read_text())
    assert timing["steps"] == 64 and timing["updates"] * cfg.batch_size / timing["steps"] == pytest.approx(1.0, abs=0.2)


def test_device_auto_trains_where_torch_can_and_files_load_on_the_cpu(tmp_path):
    """``device="auto"``: CUDA where torch sees it, else the CPU (this test runs anywhere); the
    model is written from the CPU, so it loads on a machine without a GPU."""
    import json

    torch.set_num_threads(1)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    train_dfp(lambda: ToyEnv(goal=[1.0, 0.2]), DFPConfig(**SMALL), [None] * 2, seed=0, run_dir=tmp_path / "run",
              device="auto")
    assert json.loads((tmp_path / "run" / "timing.json").read_text())["device"] == expected
    state = torch.load(RunFolder(tmp_path / "run").model_file, weights_only=False)  # where it was saved
    assert {w.device.type for w in state["weights"].values()} == {"cpu"}
    agent = DFPAgent.load(RunFolder(tmp_path / "run").model_file)
    assert agent.device == "cpu" and {p.device.type for p in agent.net.parameters()} == {"cpu"}
    with pytest.raises(ConfigError, match="--device gpu"):
        train_dfp(lambda: ToyEnv(), DFPConfig(**SMALL), [None], seed=0, run_dir=tmp_path / "bad", device="gpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_plays_as_the_cpu_does_and_runs_resume_across_devices(tmp_path):
    """On a GPU: the same weights score actions as on the CPU (to float tolerance); a run started on
    the GPU resumes on the CPU from its checkpoint, and its files hold CPU tensors only."""
    torch.set_num_threads(1)
    cfg = DFPConfig(**SMALL)
    cpu = DFPAgent(4, 2, 3, cfg)
    gpu = DFPAgent(4, 2, 3, cfg, net=build_net(4, 2, 3, cfg), device="cuda")
    gpu.net.load_state_dict(cpu.net.state_dict())
    rng = np.random.default_rng(0)
    obs, meas, goal = rng.random((5, 4)), rng.random((5, 2)), rng.random((5, 2))
    assert np.allclose(cpu.objectives(obs, meas, goal), gpu.objectives(obs, meas, goal), atol=1e-5)
    _Interrupting.fired = False  # another test may have fired it
    with pytest.raises(KeyboardInterrupt):
        train_dfp(lambda: _Interrupting(), cfg, [None] * 4, seed=3, run_dir=tmp_path / "c", checkpoint_every=1,
                  device="cuda")
    res = train_dfp(lambda: _Interrupting(), cfg, [None] * 4, seed=3, run_dir=tmp_path / "c", checkpoint_every=1)
    assert res.steps == 4 * 30
    for path in (tmp_path / "c").rglob("*.pt"):
        state = torch.load(path, weights_only=False)
        assert {w.device.type for w in state["weights"].values()} == {"cpu"}
        assert all(v.device.type == "cpu" for s in state["optimizer"]["state"].values() for v in s.values())
