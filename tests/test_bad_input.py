"""Bad input gets one clear line naming the file or argument and exit status 2 (issue 15, part)."""

from __future__ import annotations

import gzip

from schedrl.cli import main

ROW = "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"


def _run(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


def test_corrupt_gzip_trace_is_one_line(tmp_path, capsys):
    good = gzip.compress(("; MaxProcs: 8\n" + ROW * 50).encode())
    bad = bytearray(good)
    for i in range(20, 40):  # flip bytes inside the deflate stream
        bad[i] ^= 0xFF
    path = tmp_path / "t.swf.gz"
    path.write_bytes(bytes(bad))
    code, err = _run(["simulate", str(path), "--schedule", str(tmp_path / "s.csv"),
                      "--metrics", str(tmp_path / "m.json")], capsys)
    assert code == 2 and len(err) == 1 and "t.swf.gz" in err[0] and "corrupt gzip" in err[0]
    assert not (tmp_path / "m.json").exists()


def test_empty_and_header_only_traces_are_errors(tmp_path, capsys):
    for name, text in (("empty.swf", ""), ("header.swf", "; MaxProcs: 8\n")):
        path = tmp_path / name
        path.write_text(text)
        code, err = _run(["simulate", str(path), "--nodes", "8", "--metrics", str(tmp_path / f"{name}.json"),
                          "--schedule", str(tmp_path / f"{name}.csv")], capsys)
        assert code == 2 and len(err) == 1 and name in err[0] and "no jobs" in err[0]
        assert not (tmp_path / f"{name}.json").exists()
        code, err = _run(["heuristics", "run", str(path), "--nodes", "8", "--out", str(tmp_path / "h.csv")], capsys)
        assert code == 2 and name in err[0]


def test_simulate_max_jobs_must_be_positive(tmp_path, capsys):
    path = tmp_path / "t.swf"
    path.write_text("; MaxProcs: 8\n" + ROW * 3)
    for bad in ("0", "-1", "-150"):
        code, err = _run(["simulate", str(path), "--max-jobs", bad, "--metrics", str(tmp_path / "m.json"),
                          "--schedule", str(tmp_path / "s.csv")], capsys)
        assert code == 2 and len(err) == 1 and "--max-jobs" in err[0]


def test_missing_requested_times_warn(tmp_path, capsys):
    from schedrl.workloads.swf import read_swf

    path = tmp_path / "noreq.swf"
    path.write_text("; MaxProcs: 8\n" + "1 0 0 100 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1\n" * 4)
    frame = read_swf(path)
    err = capsys.readouterr().err
    assert "noreq.swf" in err and "4 of 4 jobs have no requested time" in err
    assert (frame["req_time"] == frame["run_time"]).all()


def test_train_bad_device_and_bad_hyperparameter_value(tmp_path, capsys):
    import torch

    base = ["train", "--env", "schedrl/DeepRM-v0", "--env-kwarg", "obs_mode=compact", "--algo", "a2c",
            "--steps", "50", "--seed", "0"]
    code, err = _run(base + ["--run-dir", str(tmp_path / "a"), "--device", "gpu0"], capsys)
    assert code == 2 and len(err) == 1 and "--device gpu0" in err[0]
    if not torch.cuda.is_available():
        code, err = _run(base + ["--run-dir", str(tmp_path / "b"), "--device", "cuda"], capsys)
        assert code == 2 and "no CUDA device" in err[0]
    code, err = _run(base + ["--run-dir", str(tmp_path / "c"), "--hp", "n_steps=-5"], capsys)
    assert code == 2 and len(err) == 1 and "'n_steps' must be >= 1" in err[0]
    # a value only SB3 itself refuses (its assertion) is the same one line, and no half-made run folder
    code, err = _run(base + ["--run-dir", str(tmp_path / "d"), "--hp", "n_steps=1", "--hp", "n_envs=1",
                             "--algo", "ppo", "--hp", "batch_size=1"], capsys)
    assert code == 2 and len(err) == 1 and "bad hyperparameter value" in err[0]
    assert not any((tmp_path / n).exists() for n in "acd")
