"""CLI subcommands, one module each.

A module here defines ``register(subparsers)``, which adds its parser and sets
``func=<callable taking the parsed args and returning an exit code or None>``. ``schedrl.cli``
discovers the modules, so adding a subcommand never edits cli.py.
"""


# Shared by the paper commands (deeprm, mdp, mrsch, runtime, sem): the same options, steps and outputs
# for each (a paper whose figure and claims functions take (spec, root, ...) uses draw_paper_figure and
# write_claims_of as they are).
def add_spec_options(parser, paper: str, root: bool = False, several: bool = False) -> None:
    """``--spec`` (the paper's config section as JSON, or a config YAML) and, with ``root``, ``--root``;
    with ``several``, ``--spec`` takes config files merged in order (read it with ``spec_text``)."""
    if several:
        parser.add_argument("--spec", required=True, nargs="+", metavar="SPEC",
                            help=f"{paper} config section (JSON) or config YAML files merged in order, as "
                            "Snakemake merges --configfile (a scale file over the config.yaml beside it; "
                            "e.g. config/paper-budget.yaml config/tuned/{paper}.yml)".replace("{paper}", paper))
    else:
        parser.add_argument("--spec", required=True, help=f"{paper} config section (JSON) or a config YAML file")
    if root:
        parser.add_argument("--root", default=f"results/{paper}", help="results folder (default: %(default)s)")


def add_threads_option(parser) -> None:
    """``--threads``: torch threads of a training or evaluation step."""
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")


def add_figure_step(sub, paper: str, names, func, help: str, description: str):
    """The ``figure NAME --spec --root --out PNG`` step of a paper command; returns its parser."""
    f = sub.add_parser("figure", help=help, description=description)
    f.add_argument("name", choices=names, help="what to draw")
    add_spec_options(f, paper, root=True)
    f.add_argument("--out", required=True, metavar="PNG", help="figure to write")
    f.set_defaults(func=func)
    return f


def add_claims_step(sub, paper: str, func, help: str = "write the claims table (claim, paper value, ours, verdict)",
                    description: str = "Compare the paper's statements and numbers with ours; write the claims CSV."):
    """The ``claims --spec --root --out CSV`` step of a paper command; returns its parser."""
    c = sub.add_parser("claims", help=help, description=description)
    add_spec_options(c, paper, root=True)
    c.add_argument("--out", required=True, metavar="CSV", help="claims table to write")
    c.set_defaults(func=func)
    return c


def spec_module(paper: str):
    """The module of a paper package that loads and checks its config section (``load_spec``,
    ``check_spec``): ``layout`` where the package is split by concern (issue 71), else
    ``experiments``. ModuleNotFoundError when ``paper`` has neither (a config section that is no paper)."""
    import importlib
    import importlib.util

    for name in ("layout", "experiments"):
        module = f"schedrl.papers.{paper}.{name}"
        if importlib.util.find_spec(module) is not None:
            return importlib.import_module(module)
    raise ModuleNotFoundError(f"schedrl.papers.{paper} has no layout or experiments module")


def load_spec(paper: str, text: str) -> dict:
    """The paper's checked config section (its ``load_spec``: see ``spec_module``)."""
    return spec_module(paper).load_spec(text)


def write_paper_claims(path, rows, paper: str | None = None, spec: dict | None = None) -> None:
    """Write a claims table and print its verdict counts (one line); with the ``paper`` and its checked
    ``spec``, its RL claims say where the trainers that run trains fail the learning probe
    (``claims.with_trainer_probes``, from config/recipe-probes.csv)."""
    from schedrl.report.claims import with_trainer_probes, write_claims

    if paper is not None and spec is not None:
        from schedrl.papers import recipe_trainers
        from schedrl.report.recipe_probes import run_probes

        rows = with_trainer_probes(rows, run_probes(recipe_trainers(paper, spec)))
    frame = write_claims(path, rows)
    print(f"{path}: {len(frame)} claims; " + ", ".join(f"{k} {v}" for k, v in frame["verdict"].value_counts().items()))


def draw_paper_figure(paper: str, args) -> int:
    """``figure`` step of a paper whose figure functions take ``(spec, root, out)``."""
    import importlib

    figures = importlib.import_module(f"schedrl.papers.{paper}.figures")
    getattr(figures, args.name)(load_spec(paper, args.spec), args.root, args.out)
    return 0


def write_claims_of(paper: str, args) -> int:
    """``claims`` step of a paper whose ``claims_rows`` takes ``(spec, root)``."""
    import importlib

    claims = importlib.import_module(f"schedrl.papers.{paper}.claims")
    spec = load_spec(paper, args.spec)
    write_paper_claims(args.out, claims.claims_rows(spec, args.root), paper, spec)
    return 0


def spec_text(paper: str, specs: list[str]) -> str:
    """``--spec`` as one text for the paper's ``load_spec``: a single JSON section or file as given;
    several config files merged in order (a scale file over the config.yaml beside it, as the
    pipeline runs it), the paper's section of the result as JSON."""
    import json
    from pathlib import Path

    from schedrl.config import load_yaml, merge_config, over_default
    from schedrl.errors import ConfigError

    if len(specs) == 1:
        return specs[0]
    merged: dict | None = None
    for path in specs:
        if not Path(path).is_file():
            raise ConfigError(f"--spec {path}: no such file (several --spec values are config files merged in order)")
        doc = load_yaml(path)
        if not isinstance(doc, dict):
            raise ConfigError(f"--spec {path}: expected a mapping (a config file)")
        merged = over_default(doc, path) if merged is None else merge_config(merged, doc)
    if not isinstance(merged.get(paper), dict):
        raise ConfigError(f"--spec {' '.join(specs)}: no {paper} section in the merged config")
    return json.dumps(merged[paper])
