"""The core's offered load and load-matched block (schedrl.workloads.splits), worked by hand."""

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import ConfigError
from schedrl.workloads.splits import load_matched_block, offered_load


def _jobs(sizes, gap=100, run=100):
    n = len(sizes)
    return pd.DataFrame({"submit_time": np.arange(n) * gap, "run_time": run, "req_procs": sizes})


def test_offered_load_by_hand():
    # 3 jobs of 100 s on 4 and 8 and 0 nodes, submitted over 200 s on a 10-node machine: 1200 / 2000
    assert offered_load(_jobs([4, 8, 0]), 10) == pytest.approx(0.6)
    assert np.isnan(offered_load(_jobs([4]), 10))  # one submit time: no span


def test_block_closest_to_the_target_the_latest_on_a_tie():
    before = _jobs([2, 2, 9, 9, 2, 2])  # blocks of 2 (rows 4-6, 2-4, 0-2) load 10 nodes 0.4, 1.8, 0.4
    assert load_matched_block(before, 2, 10, target=1.8) == (2, 4)
    assert load_matched_block(before, 2, 10, target=0.4) == (4, 6)  # rows 0-2 tie with 4-6: the latest
    assert load_matched_block(before, 4, 10, target=0.0) == (2, 6)  # one candidate: the block ending last
    with pytest.raises(ConfigError, match="at least 7 jobs.*there are 6"):
        load_matched_block(before, 7, 10, target=1.0)
