"""Example (observation, info) policies for ``schedrl score``, one good and a few bad ones.

``first_fit`` reads only ``info``: the first waiting job that fits now, else the last action
(DeepRM's void action or the time-stepped env's X); on the pick-and-reserve env the queue head.
The bad ones show what ``schedrl score`` reports: ``masked`` picks an empty slot, ``wrong_type``
returns a string, ``raises`` fails inside the user's code.
"""

import numpy as np


def first_fit(observation, info):
    jobs = info["queue"]
    if info["family"] == "pick_reserve":
        return int(jobs.slot[0]) if len(jobs) else 0
    fitting = jobs.slot[jobs.fits]
    return int(fitting[0]) if len(fitting) else len(info["action_mask"]) - 1


def masked(observation, info):
    return int(np.flatnonzero(~np.asarray(info["action_mask"]))[0]) if not np.all(info["action_mask"]) else -1


def wrong_type(observation, info):
    return "first"


def _helper(jobs):
    return jobs.slot[len(jobs) + 5]


def raises(observation, info):
    return _helper(info["queue"])
