# Two commands do everything on a fresh machine:
#   make all    set up .venv and run the whole pipeline at default scale (snakemake --cores 8 all)
#   make test   set up .venv and run the test command (pytest, dry runs of every scale, smoke DAG)
# Override the scale or cores: make all CONFIG=config/smoke.yaml CORES=2

VENV ?= .venv
PYTHON ?= python3
CORES ?= 8
CONFIG ?= config/config.yaml
# pytest processes (pytest-xdist; a file's tests stay in one): CI's machine has two cores
TEST_WORKERS ?= 2
BIN := $(abspath $(VENV))/bin
export PATH := $(BIN):$(PATH)
export OMP_NUM_THREADS ?= 1

.PHONY: setup all smoke test pytest dryrun lint clean help test-slurm fuzz plan status

help:
	@echo "make all    - set up and run the pipeline at default scale (CONFIG=..., CORES=...)"
	@echo "make smoke  - set up and run the whole DAG at CI scale on 2 cores"
	@echo "make test   - set up and run pytest, dry runs of all scales and the smoke DAG"
	@echo "make lint   - ruff and snakemake --lint"
	@echo "make test-slurm - one-node SLURM (root; installs slurm-wlm), the runtime smoke target through it, compared with a local run"
	@echo "make fuzz   - 10,000 generated bad inputs at the trace reader, config loader, --spec, the CLI and the envs"
	@echo "make plan   - docs/paper-scale-plan.md from the paper-scale DAG"
	@echo "make status - README's status table and docs/reproduction-status.md from the recorded runs (schedrl status --write)"

setup: $(VENV)/.installed

# torch first, from the exact pin: on CPU machines this takes the local CPU wheel.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[dev,tensorboard]"
	touch $@

all: setup
	snakemake all --cores $(CORES) --configfile $(CONFIG)

smoke: setup
	snakemake all --cores 2 --configfile config/smoke.yaml --show-failed-logs
	python scripts/check_added_seed.py --configfile config/smoke.yaml
	snakemake --report results/report/snakemake-report.zip --configfile config/smoke.yaml
	@du -sh results | sed 's/^/smoke outputs on disk: /'

pytest: setup
	pytest -q -n $(TEST_WORKERS) --dist loadfile

dryrun: setup
	for c in config/config.yaml config/smoke.yaml config/paper.yaml; do \
	  snakemake all -n --quiet rules --configfile $$c || exit 1; done
	for t in $$(python scripts/paper_budget_targets.py); do \
	  snakemake $$t -n --quiet rules --configfile config/paper-budget.yaml || exit 1; done

test: pytest dryrun smoke

test-slurm: setup
	scripts/test-slurm.sh $(or $(TARGET),runtime)

fuzz: setup
	python benchmarks/fuzz_inputs.py --n 10000

plan: setup
	python scripts/paper_scale_plan.py --config config/paper.yaml --overlay config/paper-halving.yaml --out docs/paper-scale-plan.md

status: setup
	schedrl status --write

lint: setup
	ruff check src tests benchmarks scripts
	snakemake --lint

clean:
	rm -rf results/* figures/* logs benchmarks/results .snakemake
	touch results/.gitkeep figures/.gitkeep
