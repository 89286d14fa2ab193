"""A small sample of the input fuzzer (``benchmarks/fuzz_inputs.py``, issue 28 part 4): generated bad
trace files, config files, ``--spec`` arguments, command lines and env keyword arguments give one-line errors, never a
traceback, a hang or a silently accepted bad input. The full run is
``python benchmarks/fuzz_inputs.py --n 10000``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from schedrl.config import load_section
from schedrl.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("fuzz_inputs", REPO / "benchmarks" / "fuzz_inputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", ["trace", "config", "spec", "cli", "env"])
def test_fuzz_sample_has_no_tracebacks_hangs_or_wrong_accepts(tmp_path, target):
    fz = _fuzz_module().run_fuzz(60, tmp_path, timeout=60, seed_value=28, share={target: 1.0})
    counts = fz.counts[target]
    assert sum(counts.values()) >= 60
    bad = {k: counts[k] for k in ("traceback", "hang", "accepted_wrong", "rejected_good", "multiline") if counts[k]}
    assert not bad, (bad, fz.examples.get(target))


def test_spec_takes_inline_json_a_json_file_or_a_yaml_file(tmp_path):
    import yaml

    config = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    section = config["runtime"]
    inline = load_section(json.dumps(section), "runtime")
    (tmp_path / "s.json").write_text(json.dumps(section))
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(section))
    (tmp_path / "full.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "noext").write_text(json.dumps(config))
    for name in ("s.json", "s.yaml", "full.yml", "noext"):
        assert load_section(str(tmp_path / name), "runtime") == inline == section


@pytest.mark.parametrize("text, needle", [
    ('{"steps": 1', "not valid JSON"),
    ('{"env": NaN}', "NaN"),
    ("nosuchfile.yaml", "no such file"),
    ("hello", "expected the runtime config section"),
])
def test_bad_spec_is_one_line(text, needle):
    with pytest.raises(ConfigError, match=needle) as info:
        load_section(text, "runtime")
    assert "\n" not in str(info.value)


def test_spec_file_problems_are_named(tmp_path):
    cases = {"list.yaml": "- 1\n- 2\n", "bin.yaml": b"\xff\xfe\x00\x01", "other.yaml": "mdp: {seeds: [0]}\n",
             "broken.json": '{"a": [1, 2\n'}
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        with pytest.raises(ConfigError) as info:
            load_section(str(path), "runtime")
        assert name in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="is a directory"):
        load_section(str(tmp_path), "runtime")


def test_yaml_alias_bomb_is_refused_quickly(tmp_path):
    from schedrl.config import load_yaml

    path = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match="aliases"):
        load_yaml(path)


def test_sigterm_is_an_interrupt_with_status_143(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    code = ("import os, signal, time\n"
            "from schedrl import cli\n"
            "def slow(args):\n"
            "    print('ready', flush=True); time.sleep(60)\n"
            "import schedrl.commands.figures as f\n"
            "f.run = slow\n"
            "orig = f.register\n"
            "def register(sub):\n"
            "    orig(sub); sub.choices['figures'].set_defaults(func=slow)\n"
            "f.register = register\n"
            "raise SystemExit(cli.main(['figures']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "SIGTERM" in err and "Traceback" not in err


@pytest.mark.parametrize("env_id, kwargs, key", [
    ("schedrl/DeepRM-v0", {"res_slot": "abc"}, "res_slot"),
    ("schedrl/DeepRM-v0", {"max_job_len": 2.5}, "max_job_len"),
    ("schedrl/DeepRM-v0", {"jobset_seed": -1}, "jobset_seed"),
    ("schedrl/DeepRM-v0", {"new_job_rate": None}, "new_job_rate"),
    ("schedrl/DeepRM-v0", {"machine_colors": "yes"}, "machine_colors"),
    ("schedrl/DeepRM-v0", {"render_mode": 3}, "render_mode"),
    ("schedrl/HPCPickReserve-v0", {"window": float("nan")}, "window"),
    ("schedrl/HPCPickReserve-v0", {"time_scale": "abc"}, "time_scale"),
    ("schedrl/HPCPickReserve-v0", {"priority_queues": "12"}, "priority_queues"),
    ("schedrl/HPCPickReserve-v0", {"reward_kwargs": -1}, "reward_kwargs"),
    ("schedrl/HPCPickReserve-v0", {"encoder": ["sem"]}, "encoder"),
    ("schedrl/HPCTimeStepped-v0", {"sim_step": float("inf")}, "sim_step"),
    ("schedrl/HPCTimeStepped-v0", {"mask_unfit": 2.5}, "mask_unfit"),
])
def test_bad_env_keyword_is_one_line_naming_it(tmp_path, env_id, kwargs, key):
    """What ``--env-kwarg KEY=VALUE`` or a config's ``env_kwargs`` can pass: a value of the wrong type
    is a ConfigError naming the keyword (it was a ValueError or TypeError from deep inside)."""
    from schedrl.experiments.envs import make_env

    if env_id != "schedrl/DeepRM-v0":
        trace = tmp_path / "t.swf"
        trace.write_text("; MaxProcs: 8\n" + "".join(f"{i + 1} {i} -1 50 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
                                                      for i in range(5)))
        kwargs = {"jobs": str(trace), "cluster": 8, **kwargs}
    with pytest.raises(ConfigError, match=key) as info:
        make_env(env_id, kwargs)
    assert "\n" not in str(info.value)


def test_checked_values_take_integral_floats_and_refuse_bools():
    import numpy as np

    from schedrl.errors import check_bool, check_int, check_real

    assert check_int("n", 10.0) == 10 and type(check_int("n", np.int64(3))) is int and check_int("n", 10**400) > 0
    for bad in (True, "3", 2.5, float("nan"), None):
        with pytest.raises(ConfigError, match="n must be an integer"):
            check_int("n", bad)
    with pytest.raises(ConfigError, match="n must be >= 1, got 0"):
        check_int("n", 0, 1)
    assert check_real("x", 3) == 3.0
    for bad in (False, "1", float("inf"), None):
        with pytest.raises(ConfigError, match="x must be a finite number"):
            check_real("x", bad)
    assert check_bool("b", np.bool_(True)) is True
    with pytest.raises(ConfigError, match="b must be true or false"):
        check_bool("b", 1)


@pytest.mark.parametrize("algo, hp, needle", [
    ("ppo", {"batch_size": 2.5}, "'batch_size' must be an integer"),
    ("ppo", {"n_steps": 0}, "'n_steps' must be >= 1"),
    ("ppo", {"gamma": [1]}, "'gamma' must be a finite number"),
    ("ppo", {"normalize_advantage": 3}, "'normalize_advantage' must be true or false"),
    ("ppo", {"policy_kwargs": 3}, "'policy_kwargs' must be a mapping"),
    ("a2c", {"use_rms_prop": "yes"}, "'use_rms_prop' must be true or false"),
    ("dqn", {"exploration_fraction": "abc"}, "'exploration_fraction' must be a finite number"),
])
def test_bad_hyperparameter_type_is_one_line_naming_it(algo, hp, needle):
    """A ``--hp`` value of the wrong type fails before training (it was a traceback mid-training,
    e.g. a float batch size in SB3's slicing); an integer written as a float is taken."""
    from schedrl.agents.hyperparams import resolve_hyperparams

    with pytest.raises(ConfigError, match=needle):
        resolve_hyperparams(algo, hp)
    _, _, kwargs = resolve_hyperparams("ppo", {"n_steps": 64.0, "gamma": 1})
    assert kwargs["n_steps"] == 64 and type(kwargs["n_steps"]) is int and type(kwargs["gamma"]) is int


def test_tune_space_choice_of_the_wrong_kind_is_named():
    from schedrl.experiments.tune import check_kinds

    kinds = {"net": "widths", "n_steps": "int", "gamma": "real", "mask": "bool"}.get
    check_kinds({"net": {"type": "categorical", "choices": [[64, 64], [256]]},
                 "n_steps": {"type": "int", "low": 8, "high": 64},
                 "gamma": {"type": "float", "low": 0.9, "high": 1.0}}, "x.tune.space", kinds)
    for space, needle in [({"net": {"type": "categorical", "choices": [[64, "x"]]}}, r"x.tune.space.net.choices"),
                          ({"net": {"type": "categorical", "choices": [[1.5]]}}, "list of layer widths"),
                          ({"n_steps": {"type": "float", "low": 8, "high": 64}}, "float range cannot give an integer"),
                          ({"mask": {"type": "categorical", "choices": [0]}}, "0 is not true or false"),
                          ({"gamma": {"type": "categorical", "choices": ["1e999"]}}, "is not a finite number")]:
        with pytest.raises(ConfigError, match=needle):
            check_kinds(space, "x.tune.space", kinds)
