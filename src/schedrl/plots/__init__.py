"""Figure helpers shared by every paper: one style and one way to save a figure.

Every figure target ``figures/<paper>/<name>.png`` is saved together with ``<name>.pdf`` and the
plotted numbers as ``<name>.csv`` (showyourwork's rule: the plot only reads data it also writes).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from schedrl.io import atomic_path, write_csv  # noqa: E402

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 10,
    # Fixed metadata so the same data give byte-identical PDFs and PNGs.
    "pdf.compression": 6,
    "svg.hashsalt": "schedrl",
}


def new_figure(nrows: int = 1, ncols: int = 1, **kwargs):
    """``plt.subplots`` under the project style."""
    plt.rcParams.update(STYLE)
    kwargs.setdefault("figsize", (5.0 * ncols, 3.6 * nrows))
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, **kwargs)


def figure_paths(png: str | Path) -> dict[str, Path]:
    """The three files of a figure target given its .png path."""
    png = Path(png)
    if png.suffix != ".png":
        raise ValueError(f"figure target must end in .png: {png}")
    return {"png": png, "pdf": png.with_suffix(".pdf"), "csv": png.with_suffix(".csv")}


def save_figure(fig, png: str | Path, data=None, kinds: tuple[str, ...] = ("pdf", "png"),
                tight: bool = False) -> dict[str, Path]:
    """Save ``fig`` in ``kinds`` (PNG and PDF) and ``data`` (a DataFrame of the plotted numbers) as CSV
    (none where ``data`` is None: the caller writes the numbers); ``tight``: cropped to every artist
    drawn (text beyond the layout's axes included)."""
    paths = figure_paths(png)
    if data is not None:
        write_csv(paths["csv"], data)
    for kind in kinds:  # png last: it is the Snakemake target that marks completion
        with atomic_path(paths[kind]) as tmp:
            fig.savefig(tmp, format=kind, metadata=_metadata(kind), **({"bbox_inches": "tight"} if tight else {}))
    plt.close(fig)
    return paths


def _metadata(kind: str) -> dict:
    if kind == "pdf":
        return {"CreationDate": None, "ModDate": None, "Producer": "schedrl", "Creator": "schedrl"}
    return {"Software": "schedrl"}
