"""scripts/timed_run.py (how default runs are measured): the CPU of a command's grandchildren counts,
the record is one JSON line, and a benchmark file that missed CPU shows as a ratio below 1."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "timed_run.py"
spec = importlib.util.spec_from_file_location("timed_run", SCRIPT)
timed_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(timed_run)

# a grandchild (shell -> python) that spins for 0.6 s of CPU
BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"


def test_grandchildren_cpu_counts_and_the_record_is_written(tmp_path):
    record, bench = tmp_path / "runs.jsonl", tmp_path / "bench"
    (bench / "p").mkdir(parents=True)
    rc = timed_run.main(["--record", str(record), "--benchmarks", str(bench), "--",
                         "sh", "-c", f"{sys.executable} -c '{BUSY}' && "
                         f"printf 's\\tcpu_time\\n1.0\\t0.3\\n' > {bench}/p/rule.tsv"])
    assert rc == 0
    (line,) = record.read_text().splitlines()
    got = json.loads(line)
    assert got["exit"] == 0 and got["cpu_s"] >= 0.6 and got["core_hours"] == pytest.approx(got["cpu_s"] / 3600, abs=1e-3)
    assert got["benchmark_files"] == 1 and got["benchmark_cpu_s"] == 0.3 and got["benchmark_over_exact"] < 0.5


def test_exit_code_passes_through_and_a_missing_command_is_one_line(tmp_path, capsys):
    assert timed_run.main(["--", "sh", "-c", "exit 3"]) == 3
    assert timed_run.main(["--", str(tmp_path / "no-such-program")]) == 127
    assert "cannot start" in capsys.readouterr().err


def test_a_killed_run_leaves_its_cpu_to_the_last_heartbeat_and_the_next_run_appends_it(tmp_path):
    """SIGKILL of timed_run and its command (a session cut off) leaves the heartbeat file; the next
    run with the same record appends it as a killed line whose CPU is what the tree had used."""
    import os
    import signal
    import subprocess
    import time

    record = tmp_path / "runs.jsonl"
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 30: pass\n"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--record", str(record), "--heartbeat", "0.2", "--",
                             "sh", "-c", f"{sys.executable} -c '{spin}'"], start_new_session=True)
    open_file = record.parent / f"{record.name}.open-{proc.pid}.json"
    deadline = time.time() + 60
    while time.time() < deadline:
        if open_file.exists() and json.loads(open_file.read_text())["cpu_s"] >= 0.5:
            break
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not record.exists() and open_file.exists()
    assert timed_run.main(["--record", str(record), "--", "true"]) == 0
    killed, done = (json.loads(x) for x in record.read_text().splitlines())
    assert killed["exit"] == "killed" and killed["cpu_s"] >= 0.5 and killed["command"][0] == "sh"
    assert done["exit"] == 0 and not list(tmp_path.glob("*.open-*"))


def test_a_run_killed_before_its_first_interval_still_leaves_its_heartbeat(tmp_path):
    """The heartbeat file is written when the command starts, not after the first interval: a
    session cut off a few seconds into a segment still leaves what tells run_seeds to unlock."""
    import os
    import signal
    import subprocess
    import time

    record = tmp_path / "runs.jsonl"
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--record", str(record), "--heartbeat", "3600", "--",
                             "sleep", "30"], start_new_session=True)
    open_file = record.parent / f"{record.name}.open-{proc.pid}.json"
    deadline = time.time() + 30
    while not open_file.exists() and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert open_file.exists()
    assert timed_run.main(["--record", str(record), "--", "true"]) == 0
    assert [json.loads(x)["exit"] for x in record.read_text().splitlines()] == ["killed", 0]


def test_tree_cpu_counts_live_grandchildren():
    import subprocess
    import time

    proc = subprocess.Popen(["sh", "-c", f"{sys.executable} -c '{BUSY}'; sleep 5"])
    try:
        deadline = time.time() + 30
        while timed_run.tree_cpu_seconds(proc.pid) < 0.5 and time.time() < deadline:
            time.sleep(0.1)
        assert timed_run.tree_cpu_seconds(proc.pid) >= 0.5
    finally:
        proc.kill()
        proc.wait()
