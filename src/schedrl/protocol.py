"""Two rules of the reproduction protocol that every layer reads, kept below all of them (issue 71):
how a number of ours is judged against the paper's (``verdict``) and at which shares of a training
budget checkpoints are evaluated (``BUDGET_FRACTIONS``). The report's claims tables
(``schedrl.report.claims``, ``schedrl.report.convergence``), the trainers' run folders and the
heuristics' verdicts all take them from here.
"""

from __future__ import annotations

#: Shares of a training budget at which the claims evaluate checkpoints (1/8, 1/4, 1/2, all): the
#: run folders keep the first checkpoint at or after each, the budget figures draw them.
BUDGET_FRACTIONS = (0.125, 0.25, 0.5, 1.0)


def verdict(ours: float, paper: float, *, rel_tol: float = 0.1, abs_tol: float = 0.0) -> str:
    """'reproduced' within tolerance, 'partly reproduced' within twice it, else 'not reproduced'."""
    gap = abs(ours - paper)
    tol = max(rel_tol * abs(paper), abs_tol)
    if gap <= tol:
        return "reproduced"
    if gap <= 2 * tol:
        return "partly reproduced"
    return "not reproduced"
