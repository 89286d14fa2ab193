"""``schedrl simulate`` end to end on a small SWF file."""

import json

from schedrl.cli import main

SWF = """; MaxNodes: 4
; MaxProcs: 4
1 0 -1 100 3 -1 -1 3 100 -1 1 -1 -1 -1 -1 -1 -1 -1
2 1 -1 10 4 -1 -1 4 10 -1 1 -1 -1 -1 -1 -1 -1 -1
3 2 -1 50 1 -1 -1 1 50 -1 1 -1 -1 -1 -1 -1 -1 -1
4 3 -1 200 1 -1 -1 1 200 -1 1 -1 -1 -1 -1 -1 -1 -1
"""


def test_simulate_writes_schedule_and_metrics(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    out_csv, out_json = tmp_path / "s.csv", tmp_path / "m.json"
    assert main(["simulate", str(trace), "--policy", "fcfs", "--backfill", "easy",
                 "--schedule", str(out_csv), "--metrics", str(out_json)]) == 0
    lines = out_csv.read_text().splitlines()
    assert lines[0].startswith("job_id,submit_time,start_time,end_time")
    starts = [float(line.split(",")[2]) for line in lines[1:]]
    assert starts == [0, 100, 2, 110]  # job 3 backfilled, job 4 waits for job 2
    metrics = json.loads(out_json.read_text())
    assert metrics["nodes"] == 4 and metrics["jobs"] == 4 and metrics["makespan"] == 310
    assert '"utilization"' in capsys.readouterr().out


def test_simulate_user_errors(tmp_path, capsys):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF.replace("; MaxNodes: 4\n; MaxProcs: 4\n", ""))
    assert main(["simulate", str(trace), "--schedule", str(tmp_path / "s.csv"),
                 "--metrics", str(tmp_path / "m.json")]) == 2
    assert "give --nodes" in capsys.readouterr().err
    assert main(["simulate", str(tmp_path / "missing.swf")]) == 2
    assert main(["simulate", str(trace), "--nodes", "4", "--sim-step", "60", "--backfill",
                 "conservative", "--schedule", str(tmp_path / "s.csv"),
                 "--metrics", str(tmp_path / "m.json")]) == 2
    assert not (tmp_path / "s.csv").exists()
