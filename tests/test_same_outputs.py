"""scripts/same_outputs.py (make test-slurm's comparison): two SB3 models of the same seeded run
agree although their zips differ in wall-clock fields; different weights still differ."""

import importlib.util
import time
from pathlib import Path

import gymnasium as gym

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "same_outputs.py"
spec = importlib.util.spec_from_file_location("same_outputs", SCRIPT)
same_outputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(same_outputs)


def _model(path: Path, seed: int) -> None:
    from stable_baselines3 import PPO

    model = PPO("MlpPolicy", gym.make("CartPole-v1"), seed=seed, n_steps=64, batch_size=32, n_epochs=1, device="cpu")
    model.learn(128)
    model.save(path)


def test_sb3_zips_compare_by_content_not_wall_time(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (a, b, c):
        (d / "run").mkdir(parents=True)
        (d / "run" / "curve.csv").write_text("step,reward\n1,2\n")
    _model(a / "run" / "model.zip", 0)
    time.sleep(0.01)
    _model(b / "run" / "model.zip", 0)
    _model(c / "run" / "model.zip", 1)
    assert (a / "run" / "model.zip").read_bytes() != (b / "run" / "model.zip").read_bytes()  # start_time differs
    assert same_outputs.differing(a, b, []) == []
    assert same_outputs.differing(a, c, []) == ["run/model.zip"]
    (b / "run" / "curve.csv").write_text("step,reward\n1,3\n")
    (b / "run" / "timing.json").write_text("{}")
    assert same_outputs.differing(a, b, []) == ["run/curve.csv", "run/timing.json"]
    assert same_outputs.differing(a, b, [r"/timing\.json$"]) == ["run/curve.csv"]
    assert same_outputs.main([str(a), str(b)]) == 1 and same_outputs.main([str(a), str(a)]) == 0
