#!/usr/bin/env bash
# Snakemake runs this once inside the conda env it creates from envs/schedrl.yaml (--use-conda),
# from the workflow's working directory: it installs schedrl itself, so every rule's `schedrl`
# command exists in that env. The pins come from the yaml; --no-deps keeps them.
set -euo pipefail
if ! grep -q '^name = "schedrl"' pyproject.toml 2>/dev/null; then
  echo "envs/schedrl.post-deploy.sh: run snakemake from the schedrl checkout (no schedrl pyproject.toml in $PWD)" >&2
  exit 1
fi
python -m pip install --quiet --no-deps -e .
