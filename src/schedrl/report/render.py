"""Render the reproduction report, as markdown (``REPRODUCTION.md``) and as one self-contained
HTML page (``index.html``, figures embedded), from the same content.

The report knows no paper itself: the caller passes each paper's title, its figures (path and
caption) and the markdown sections its rules wrote; claims tables carry the paper's short name.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import pandas as pd

from schedrl.errors import InputFileError
from schedrl.report.claims import (
    CAUSES,
    CLAIM_COLUMNS,
    OPTIONAL_COLUMNS,
    VERDICT_SHORT,
    VERDICTS,
    read_claims,
)
from schedrl.report.convergence import NOT_CONVERGED
from schedrl.report.recorded import budget_section, recorded_section

#: Packages whose versions the report lists (what produced the numbers).
VERSIONED = ("schedrl", "numpy", "pandas", "scipy", "numba", "torch", "stable-baselines3", "sb3-contrib",
             "gymnasium", "snakemake", "matplotlib")


@dataclass
class Figure:
    path: str
    caption: str


@dataclass
class PaperInfo:
    """What the report shows of one paper (``schedrl.papers`` builds these)."""

    title: str
    figures: list[Figure] = field(default_factory=list)
    targets: int = 0  # files the paper's rules are expected to build (figures, tables, claims)
    status: str = ""  # markdown: measured runs and what they show (papers/<paper>/status.md)
    deviations: list[dict] = field(default_factory=list)  # paper_values.yaml's deviations
    recorded: pd.DataFrame | None = None  # verdicts of recorded default runs (report/recorded.py)
    #: normalised rows of its recorded runs (``status_tables.recorded_players``): the paper-budget and
    #: tuned agents beside this build's players in "Where RL stands"
    recorded_players: pd.DataFrame | None = None
    #: its verdicts over seeds (``status_tables.paper_seed_lines``): markdown lines, [] where none
    seed_verdicts: list[str] = field(default_factory=list)


#: Columns of a paper's headline table, in order (claim columns renamed for readers).
HEADLINE = {"claim": "claim", "paper_value": "paper", "ours": "ours", "ci95": "95% CI", "at_budgets": "at budgets",
            "trend": "trend", "converged": "converged", "verdict": "verdict", "random_verdict": "random play",
            "untrained_verdict": "untrained net", "plays_as": "agent plays as", "note": "reason / evidence"}
#: Columns of a paper's fingerprint table (``results/<paper>/fingerprints.csv``), renamed for readers.
FINGERPRINT = {"agent": "agent", "contested": "contested decisions", "chance": "chance",
               "agree_fcfs": "FCFS", "agree_sjf": "SJF", "agree_smallest_area": "smallest area",
               "agree_largest": "largest", "agree_first_valid": "lowest valid slot", "top_slot": "top slot", "top_slot_share": "top slot share", "invalid_share": "invalid picks",
               "entropy_median": "entropy (median)", "entropy_uniform_median": "uniform entropy",
               "top_prob_ge_099": "p(top) >= 0.99", "spread_across_states": "score spread: states",
               "spread_across_slots": "score spread: slots", "zeroed_obs_agree": "same on zeroed obs",
               "dead_share": "dead units", "plays_as": "plays as"}


CAUSE_TEXT = {
    "trainer fails probe": "the agents' trainer fails the learning probe (`schedrl probe`): no verdict on learning",
    "not converged": "the value still moved over the last doubling of training",
    "in-sample only": "holds under the paper's protocol (in-sample), not held out",
    "setup": "rests on a named deviation from the paper's setup",
    "process": "our decision process or reward differs from the paper's",
    "agent = heuristic": "the trained agent follows one picker on >= 95% of its decisions",
    "uninformative": "random play or the untrained network gets the same verdict",
    "paper value not comparable": "the paper's number cannot be set against ours",
    "disagrees": "none of these: our evidence stands against the paper's",
}
CAUSE_SHORT = {"trainer fails probe": "no learner", "not converged": "not conv.", "in-sample only": "in-sample", "setup": "setup", "process": "process",
               "agent = heuristic": "heuristic", "uninformative": "uninf.", "paper value not comparable": "not comp.",
               "disagrees": "disagrees"}
FOLD_AT = 160  # characters of a note shown before the rest folds away


def fold(note: str) -> str:
    """A long note as a one-line summary (its first sentence) with the rest under ``<details>``."""
    note = str(note).replace("\n", " ").strip()
    if len(note) <= FOLD_AT:
        return note
    cut = note.find(". ", 0, FOLD_AT)
    cut = cut + 1 if cut > 0 else note.rfind(" ", 0, FOLD_AT)
    cut = cut if cut > 0 else FOLD_AT
    head, rest = html.escape(note[:cut].strip()), html.escape(note[cut:].strip())
    return f"<details><summary>{head}</summary>{rest}</details>"


#: The heading above which a paper's status text states its current state and below which its dated
#: history follows, oldest last; the report folds the history away. status.md holds the current state
#: (at most 30 lines, tests/test_status_pages.py) and ends on a line linking HISTORY_LINK, the
#: history.md beside it; ``status_with_history`` joins the two under this heading for the report.
HISTORY_HEADING = "## History"
HISTORY_LINK = "[history.md](history.md)"


def status_with_history(status: str, history: str = "") -> str:
    """A paper's status.md and history.md as one text for ``status_lines``: the status page less its
    line linking history.md, then ``HISTORY_HEADING`` and history.md less its title line (its links
    work only beside the files), its headings moved below the report's paper sections (``####``)."""
    status = "\n".join(line for line in status.strip().splitlines() if HISTORY_LINK not in line).strip()
    lines = history.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    body = "\n".join("##" + line if line.startswith("## ") else line for line in lines).strip()
    return f"{status}\n\n{HISTORY_HEADING}\n\n{body}\n" if body else status


def status_lines(status: str) -> list[str]:
    """A paper's status.md for the report: its current state as written, its dated history (below
    ``HISTORY_HEADING``) folded under ``<details>`` (markdown inside still renders)."""
    text = status.strip()
    at = text.find(f"\n{HISTORY_HEADING}\n")
    if at < 0:
        return [text]
    current, history = text[:at].strip(), text[at + len(HISTORY_HEADING) + 2:].strip()
    return [current, "", '<details markdown="1"><summary>History: the dated runs and findings behind the current '
            "state</summary>", "", history, "", "</details>"]


def cause_section(rows: pd.DataFrame) -> list[str]:
    """Markdown lines: the paper's claims that are not (fully) reproduced, grouped by cause."""
    missed = rows[rows["cause"] != ""]
    if missed.empty:
        return []
    out = [f"### Why claims are not reproduced ({len(missed)} of {len(rows)})", ""]
    for cause in CAUSES:
        group = missed[missed["cause"] == cause]
        if len(group):
            items = "; ".join(f"{r.claim_id} ({r.verdict})" for r in group.itertuples())
            out.append(f"* **{cause}** ({len(group)}): {items}")
    return out + [""]


def fingerprint_section(frame: pd.DataFrame) -> list[str]:
    """Markdown lines: what each trained agent does on its contested decisions (agreement shares
    with the heuristics and fixed slots; ``schedrl.experiments.fingerprint``)."""
    cols = [c for c in FINGERPRINT if c in frame.columns]
    if not cols or frame.empty:
        return []
    table = frame[cols].copy()
    for c in cols:
        if c not in ("agent", "contested", "top_slot", "plays_as"):
            table[c] = pd.to_numeric(table[c], errors="coerce").map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
    table = table.fillna("").rename(columns=FINGERPRINT)
    table = table.loc[:, [c for c in table.columns if (table[c].astype(str) != "").any()]]
    blind = int((frame.get("plays_as", pd.Series(dtype=str)).fillna("").astype(str) != "").sum())
    return ["### What the agents learned (behaviour fingerprints)", "",
            "Over each agent's contested decisions (two or more valid actions) in its evaluation episodes: "
            "the share on which it picks what FCFS (queue head), SJF, smallest area or largest first would, "
            "its most-picked slot, what uniform random play agrees by chance, the median entropy of its "
            "policy against uniform over the valid actions, the spread of its scores across states for "
            "one slot against across slots in one state (near 0 across states: the agent ignores the "
            "state), how often it acts the same on zeroed observations, and its dead hidden units. "
            f"{blind} of {len(frame)} agents follow one picker on >= 95% of their contested decisions "
            "(\"plays as\").", "", _md_table(table), ""]
MAX_HEADLINES = 8


def headline_claims(rows: pd.DataFrame) -> pd.DataFrame:
    """The claims a reader needs first: those that compare methods (a 95% interval) or rest on a
    trained agent (a convergence status); a paper with neither shows its first claims."""
    marked = rows[(rows["ci95"].astype(str) != "") | (rows["converged"].astype(str) != "")]
    return marked if len(marked) else rows.head(MAX_HEADLINES)


def _anchor(paper: str) -> str:
    return f"paper-{paper}"


def _md_table(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|").replace("\n", " ") for v in row) + " |")
    return "\n".join(lines)


#: Report chapters that are not papers: a section under ``figures/<group>/`` lands in its chapter.
GROUPS = {"score": "Your schedulers against the papers (schedrl score)"}


def _belongs(path: Path, paper: str) -> bool:
    """A section belongs to ``paper`` when its folder is named so or its name starts ``<paper>_``."""
    return path.parts[-2:-1] == (paper,) or path.name.startswith(f"{paper}_")


def benchmark_seconds(root: str | Path = "benchmarks/results", budget: dict | None = None) -> pd.DataFrame:
    """The Cost section's table: per paper rule runs, wall and CPU hours, budget and share
    (``schedrl.report.budget``)."""
    from schedrl.report.budget import budget_table

    return budget_table(root, budget)


def versions() -> dict[str, str]:
    out = {}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


#: The figures 'schedrl normalised' draws beside aggregate.csv, with their captions (report order).
NORMALISED_FIGURES = {"where_rl_stands.png": "Each player's IQM normalised score and 95% interval per paper "
                      "(0 random valid play, 1 the best heuristic; players as seeds x workloads)",
                      "profiles.png": "Performance profiles (rliable) of the papers with at least five "
                      "scaled workloads: the share of runs x workloads above each normalised score"}


def _rl_table(path: str, recorded: list[pd.DataFrame] = ()) -> pd.DataFrame:
    """This build's normalised aggregate and, for the papers it holds, the players of their recorded
    runs at the other scales (``recorded``: ``PaperInfo.recorded_players``)."""
    if not Path(path).is_file():
        raise InputFileError(path, "no such file (run 'schedrl normalised' first)")
    built = pd.read_csv(path)
    extra = [f[f["paper"].isin(set(built["paper"])) & ~f["scale"].isin(set(built["scale"]))]
             for f in recorded if f is not None and len(f)]
    table = pd.concat([built, *extra], ignore_index=True) if any(len(f) for f in extra) else built
    return table.sort_values("paper", kind="stable").reset_index(drop=True)


def _where_rl_stands(path: str, report_dir: str | Path, table: pd.DataFrame) -> str:
    """The opening section from ``table`` (``_rl_table``), with the figures drawn beside ``path``."""
    import os

    from schedrl.report.normalised import where_rl_stands

    gaps = Path(path).with_name("gaps.csv")  # written beside it by 'schedrl normalised'
    figures = {caption: os.path.relpath(Path(path).with_name(name), report_dir)
               for name, caption in NORMALISED_FIGURES.items() if Path(path).with_name(name).is_file()}
    return where_rl_stands(table, pd.read_csv(gaps) if gaps.is_file() else None, figures)


def headroom_line(table: pd.DataFrame | None, paper: str) -> list[str]:
    """A paper section's one line on headroom (issue 69): its best agent against random valid play
    and the best heuristic on the normalised scale; nothing where the paper has no agent scored."""
    from schedrl.report.normalised import headroom_sentences

    if table is None or not (table["paper"] == paper).any():
        return []
    found = headroom_sentences(table[table["paper"] == paper])
    return [f"**Headroom**: {found[0].split(': ', 1)[1]}", ""] if found else []


def render_report(claims_files, section_files, scale: str, papers: dict[str, PaperInfo | str], *,
                  report_dir: str | Path = "results/report", benchmarks: pd.DataFrame | None = None,
                  package_versions: dict[str, str] | None = None,
                  fingerprint_files=(), normalised: str | None = None) -> tuple[str, pd.DataFrame]:
    """Return the markdown text and the concatenated claims table.

    ``papers`` maps each paper's short name to its ``PaperInfo`` (or just its title), in report
    order. Figure paths are written relative to ``report_dir``, where the report lives.
    ``fingerprint_files`` are papers' ``fingerprints.csv`` (``results/<paper>/``), shown under
    their paper. ``normalised`` (``results/normalised/aggregate.csv``) opens the report with its
    "Where RL stands" table.
    """
    fingerprints = {}
    for f in fingerprint_files:
        path = Path(f)
        if not path.is_file():
            raise InputFileError(f, "no such file" if not path.exists() else "not a file")
        paper = path.parent.name
        try:
            fingerprints[paper] = pd.read_csv(path)
        except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise InputFileError(f, f"not a fingerprints CSV ({str(exc).splitlines()[0]})") from None
    papers = {k: v if isinstance(v, PaperInfo) else PaperInfo(title=v) for k, v in papers.items()}
    rl_table = _rl_table(normalised, [i.recorded_players for i in papers.values()]) if normalised else None
    frames = [read_claims(p) for p in claims_files]
    for section in section_files:  # check every section up front: none is dropped or half-read
        path = Path(section)
        if not path.is_file():
            raise InputFileError(section, "no such file" if not path.exists() else "not a file")
        if not any(_belongs(path, paper) for paper in [*papers, *GROUPS]):
            raise InputFileError(section, "section belongs to no paper: put it under figures/<paper>/ "
                                 f"(papers: {', '.join(papers)})")
    claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(CLAIM_COLUMNS))
    out = [
        "# schedrl reproduction report",
        "",
        f"Scale: **{scale}**. Generated by `snakemake report`; every number below comes from a file "
        "the pipeline wrote. Verdicts compare our value with the paper's; each claim's note says "
        "where our number comes from (real trace or synthetic stand-in, seeds, protocol).",
        "",
        *([
            "**Smoke scale:** agents are trained for a few thousand steps and traces may be cut to a "
            "prefix, so verdicts on trained agents say only that the pipeline runs end to end; read "
            "them at default or paper scale.",
            "",
        ] if scale == "smoke" else []),
        *([_where_rl_stands(normalised, report_dir, rl_table)] if normalised else []),
        "## Verdicts",
        "",
        "Claims per verdict at this scale; *not converged* counts RL claims whose value still moved "
        "over the last doubling of training (`schedrl.report.convergence`: beyond the final value's "
        "95% interval, or half the claim's tolerance), so their verdict may change with more training. "
        "*Random play too* counts RL claims that the uniform-random valid policy or the untrained network "
        "also reproduces (fully or partly) under the same protocol: their verdict says nothing about learning.",
        "",
    ]
    summary = []
    for paper, info in papers.items():
        rows = claims[claims["paper"] == paper]
        counts = {v: int((rows["verdict"] == v).sum()) for v in VERDICTS}
        done = sum(Path(f.path).is_file() for f in info.figures)
        summary.append({"paper": f"[{paper}](#{_anchor(paper)})", "figures": f"{done}/{len(info.figures)}",
                        "claims": len(rows), **{VERDICT_SHORT[v]: n for v, n in counts.items()},
                        "not converged": int((rows["converged"] == NOT_CONVERGED).sum()),
                        "random play too": int((rows["uninformative"] == "yes").sum()),
                        **{f"why: {CAUSE_SHORT[c]}": int((rows["cause"] == c).sum()) for c in CAUSES}})
    summary = pd.DataFrame(summary)
    summary = summary.loc[:, [c for c in summary.columns if not c.startswith("why: ") or summary[c].sum()]]
    out += [_md_table(summary), "",
            "R reproduced, P partly, N not, C not comparable. *why:* columns count the claims not (fully) "
            "reproduced by cause, one each (`schedrl.report.claims.claim_cause`): "
            + "; ".join(f"**{CAUSE_SHORT[c]}** ({c}): {CAUSE_TEXT[c]}" for c in CAUSES) + ".", ""]
    out += ["## Contents", ""]
    out += [f"{i}. [{info.title}](#{_anchor(paper)})" for i, (paper, info) in enumerate(papers.items(), 1)]
    groups = {g: t for g, t in GROUPS.items() if any(_belongs(Path(f), g) for f in section_files)}
    out += [f"{len(papers) + i}. [{title}](#{_anchor(g)})" for i, (g, title) in enumerate(groups.items(), 1)]
    extra = (["Cost"] if benchmarks is not None and benchmarks["rule_runs"].sum() > 0 else []) \
        + (["Software"] if package_versions else [])
    out += [f"{len(papers) + len(groups) + i}. [{name}](#{name.lower()})" for i, name in enumerate(extra, 1)] + [""]
    report_dir = Path(report_dir)
    for paper, info in papers.items():
        rows = claims[claims["paper"] == paper]
        out += [f'<a id="{_anchor(paper)}"></a>', "", f"## {info.title}", "", *headroom_line(rl_table, paper)]
        if rows.empty and not info.figures:
            out += ["Not reproduced yet: the paper's issue has not landed, so nothing is built for it.", ""]
            continue
        if len(rows):
            out += cause_section(rows)
            heads = headline_claims(rows)
            table = heads[list(HEADLINE)].assign(note=heads["note"].map(fold)).rename(columns=HEADLINE)
            table = table.loc[:, [c for c in table.columns if (table[c].astype(str) != "").any()]]
            out += [f"### Headline claims ({len(heads)} of {len(rows)})", "", _md_table(table), ""]
        if info.recorded is not None:
            out += budget_section(paper, info.recorded, _md_table)
            if info.seed_verdicts:
                from schedrl.report.status_tables import SEEDS_INTRO

                out += ["### Verdicts over seeds", "", SEEDS_INTRO, "", *info.seed_verdicts]
            # this build joins the recorded runs only at the default scale
            out += recorded_section(info.recorded, rows if scale == "default" and len(rows) else None, _md_table)
        if paper in fingerprints:
            out += fingerprint_section(fingerprints[paper])
        if info.status.strip():
            out += ["### Status and measured runs", "", *status_lines(info.status), ""]
        if info.deviations:
            out += [f"### Deviations from the paper ({len(info.deviations)})", "", _md_table(pd.DataFrame(
                [{"what": d["what"], "paper": d["paper"], "ours": d["ours"], "reason": d["reason"],
                  "effect": d.get("effect", "")} for d in info.deviations])), ""]
        for section in section_files:
            path = Path(section)
            if _belongs(path, paper):
                out += [path.read_text().strip(), ""]
        for fig in info.figures:
            if Path(fig.path).is_file():
                rel = Path(fig.path).resolve().relative_to(Path.cwd().resolve()) if Path(fig.path).is_absolute() \
                    else Path(fig.path)
                link = Path(*[".."] * len(report_dir.parts)) / rel
                out += [f"![{fig.caption}]({link.as_posix()})", "", f"*{Path(fig.path).stem}: {fig.caption}*", ""]
        out += [f"### All claims ({len(rows)})", ""]
        if len(rows):
            table = rows.drop(columns=["paper"]).assign(note=rows["note"].map(fold))
            table = table.loc[:, [c for c in table.columns if c not in OPTIONAL_COLUMNS
                                  or (table[c].astype(str) != "").any()]]
            out += [_md_table(table), ""]
        else:
            out += ["No claims checked at this scale.", ""]
    for group, title in groups.items():
        out += [f'<a id="{_anchor(group)}"></a>', "", f"## {title}", ""]
        out += [Path(f).read_text().strip() + "\n" for f in section_files if _belongs(Path(f), group)]
    if benchmarks is not None and benchmarks["rule_runs"].sum() > 0:
        from schedrl.report.budget import formatted

        table = formatted(benchmarks).rename(columns={"paper": "paper / group"})
        out += ['<a id="cost"></a>', "", "## Cost", "", "Every rule run with a `benchmark:` file, summed per group: wall hours, CPU "
                "core-hours used (Snakemake samples CPU every 30 s, so the sum is a lower bound; the "
                "`max` column adds one sampling interval per rule), and the share of the default-scale budget (`budget.core_hours` in "
                "config/config.yaml; the whole default DAG in <= 32 core-hours). `schedrl budget` prints "
                "the same table.", "", _md_table(table), ""]
    if package_versions:
        out += ['<a id="software"></a>', "", "## Software", "", _md_table(pd.DataFrame(
            [{"package": k, "version": v} for k, v in package_versions.items()])), ""]
    return "\n".join(out) + "\n", claims


_IMG = re.compile(r'<img alt="([^"]*)" src="([^"]+)"\s*/?>')
_STYLE = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f3f3f3}img{max-width:100%;border:1px solid #eee}h2{border-bottom:2px solid #ddd;margin-top:2em}
td:nth-child(n){word-break:normal}"""
_VERDICT_COLOURS = {"reproduced": "#d4edda", "partly reproduced": "#fff3cd", "not reproduced": "#f8d7da",
                    "not comparable": "#e2e3e5"}


def render_html(markdown_text: str, report_dir: str | Path) -> str:
    """The report as one HTML page: figures embedded as data URIs (no file beside it is needed)."""
    import markdown

    body = markdown.markdown(markdown_text, extensions=["tables", "md_in_html"], output_format="html")

    def embed(match: re.Match) -> str:
        alt, src = match.group(1), match.group(2)
        path = (Path(report_dir) / html.unescape(src)).resolve()
        if not path.is_file():
            return f'<p class="missing">missing figure: {html.escape(src)}</p>'
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f'<img alt="{alt}" src="data:image/png;base64,{data}"/>'

    body = _IMG.sub(embed, body)
    for verdict, colour in _VERDICT_COLOURS.items():
        body = body.replace(f"<td>{verdict}</td>", f'<td style="background:{colour}">{verdict}</td>')
    # After loading, the page records how many figures decoded (a browser check reads it).
    script = ("<script>window.addEventListener('load',function(){var i=document.images,n=0;"
              "for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0){n++;}}"
              "document.body.setAttribute('data-figures-loaded',n+'/'+i.length);});</script>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>schedrl reproduction report</title>"
            f"<style>{_STYLE}</style>{script}</head><body>\n{body}\n</body></html>\n")
