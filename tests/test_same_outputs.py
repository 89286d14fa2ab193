"""scripts/same_outputs.py (make test-slurm's comparison): two SB3 models of the same seeded run,
saved by two processes, agree although their zips differ in wall-clock fields and in the memory
addresses of the reprs SB3 stores beside its pickled classes; a changed weight still differs."""

import importlib.util
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import torch

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "same_outputs.py"
spec = importlib.util.spec_from_file_location("same_outputs", SCRIPT)
same_outputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(same_outputs)

# the pipeline's policy class (its methods' reprs carry addresses), a few hundred CartPole steps
TRAIN = """
import sys
import gymnasium as gym
import torch
from stable_baselines3 import PPO
from schedrl.agents.lean_policy import LeanMlpPolicy

torch.set_num_threads(1)
model = PPO(LeanMlpPolicy, gym.make("CartPole-v1"), seed=0, n_steps=64, batch_size=32, n_epochs=1, device="cpu")
model.learn(256)
model.save(sys.argv[1])
"""


def _models(*paths: Path) -> None:
    """One SB3 zip per path, each saved by its own Python process (run side by side)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", TRAIN, str(p)], env=env, stderr=subprocess.PIPE, text=True)
             for p in paths]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]


def _with_changed_weight(src: Path, dst: Path) -> None:
    """A copy of the zip whose policy.pth has one weight nudged; every other member as it was."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            raw = zin.read(name)
            if name == "policy.pth":
                state = torch.load(io.BytesIO(raw), weights_only=True)
                key = next(k for k, v in state.items() if v.is_floating_point())
                state[key].view(-1)[0] += 1e-3
                buf = io.BytesIO()
                torch.save(state, buf)
                raw = buf.getvalue()
            zout.writestr(name, raw)


def test_sb3_zips_of_two_processes_compare_by_content(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (a, b, c):
        (d / "run").mkdir(parents=True)
        (d / "run" / "curve.csv").write_text("step,reward\n1,2\n")
    _models(a / "run" / "model.zip", b / "run" / "model.zip")
    za, zb = zipfile.ZipFile(a / "run" / "model.zip"), zipfile.ZipFile(b / "run" / "model.zip")
    for name in ("policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"):
        assert za.read(name) == zb.read(name)
    da, db = json.loads(za.read("data")), json.loads(zb.read("data"))
    assert da["start_time"] != db["start_time"]
    assert " at 0x" in json.dumps(da["policy_class"]) and da["policy_class"] != db["policy_class"]  # addresses
    assert same_outputs.differing(a, b, []) == []
    script = subprocess.run([sys.executable, str(SCRIPT), str(a), str(b)], capture_output=True, text=True)
    assert script.returncode == 0 and script.stdout == "", script.stdout + script.stderr

    _with_changed_weight(a / "run" / "model.zip", c / "run" / "model.zip")
    assert same_outputs.differing(a, c, []) == ["run/model.zip"]
    script = subprocess.run([sys.executable, str(SCRIPT), str(a), str(c)], capture_output=True, text=True)
    assert script.returncode == 1 and script.stdout == "  differs: run/model.zip\n"

    (b / "run" / "curve.csv").write_text("step,reward\n1,3\n")
    (b / "run" / "timing.json").write_text("{}")
    assert same_outputs.differing(a, b, []) == ["run/curve.csv", "run/timing.json"]
    assert same_outputs.differing(a, b, [r"/timing\.json$"]) == ["run/curve.csv"]
    assert same_outputs.main([str(a), str(b)]) == 1 and same_outputs.main([str(a), str(a)]) == 0


def test_reprs_compare_without_addresses_and_pickles_byte_for_byte():
    def data(address: str, blob: str, lr: float = 3e-4) -> bytes:
        return json.dumps({"learning_rate": lr, "policy_class": {
            ":type:": "<class 'abc.ABCMeta'>", ":serialized:": blob,
            "forward": f"<function LeanMlpPolicy.forward at {address}>"}}).encode()

    norm = same_outputs._sb3_data
    assert norm(data("0x7f23c3e29620", "gAWV")) == norm(data("0x7f0011aa22bb", "gAWV"))
    assert norm(data("0x7f23c3e29620", "gAWV")) != norm(data("0x7f23c3e29620", "gAWW"))  # a different pickle
    assert norm(data("0x7f23c3e29620", "gAWV")) != norm(data("0x7f23c3e29620", "gAWV", 1e-3))
