#!/usr/bin/env bash
# Run one paper's smoke target through real SLURM jobs (workflow/profiles/slurm) on a one-node
# cluster (scripts/slurm-one-node.sh), run it locally too, and compare every output file; then once
# more through SLURM with its running jobs requeued mid-training, compared with the local run too.
#
#   scripts/test-slurm.sh [TARGET]        (default TARGET: runtime; `make test-slurm`)
#
# Each side runs in its own scratch folder (links to Snakefile, workflow/, src/, a copy of config/).
# Prints the files that differ, and writes sacct's view of every job (requested vs used CPUs,
# memory and time) to $OUT/sacct.txt. Skips (exit 0, saying so) where SLURM cannot be started:
# not root, or no slurmctld and no apt-get.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
TARGET=${1:-runtime}
OUT=${OUT:-$(mktemp -d /tmp/schedrl-slurm.XXXXXX)}
CONFIG=config/smoke.yaml

if [ "$(id -u)" != 0 ] && ! command -v sbatch >/dev/null 2>&1; then
  echo "test-slurm: skipped (not root and no SLURM here)"; exit 0
fi
if ! command -v slurmctld >/dev/null 2>&1 && ! command -v apt-get >/dev/null 2>&1; then
  echo "test-slurm: skipped (no SLURM and no apt-get to install it)"; exit 0
fi
if [ "$(id -u)" = 0 ]; then
  scripts/slurm-one-node.sh start || { echo "test-slurm: skipped (the one-node cluster did not start)"; exit 0; }
fi

scratch() {
  mkdir -p "$1"
  for f in Snakefile workflow src; do ln -sfn "$REPO/$f" "$1/$f"; done
  rm -rf "$1/config" && cp -r "$REPO/config" "$1/config"
  # the traces folder the configs name as ../shared/traces
  [ -e "$REPO/../shared" ] && ln -sfn "$REPO/../shared" "$(dirname "$1")/shared"
}
scratch "$OUT/slurm"
scratch "$OUT/local"

export OMP_NUM_THREADS=1
start=$(date +%s)
(cd "$OUT/slurm" && snakemake "$TARGET" --profile workflow/profiles/slurm --configfile "$CONFIG" \
   --jobs 2 --slurm-init-seconds-before-status-checks 5 --latency-wait 5 --retries 0 \
   >"$OUT/slurm.log" 2>&1)
rc=$?
slurm_s=$(( $(date +%s) - start ))
echo "test-slurm: snakemake $TARGET through SLURM: exit $rc in ${slurm_s} s (log: $OUT/slurm.log)"
if [ $rc != 0 ]; then tail -30 "$OUT/slurm.log"; exit 1; fi
jobs=$(grep -c "Job .* has been submitted with SLURM jobid" "$OUT/slurm.log" || true)
echo "test-slurm: $jobs SLURM jobs submitted"

start=$(date +%s)
(cd "$OUT/local" && nice snakemake "$TARGET" --cores 2 --configfile "$CONFIG" >"$OUT/local.log" 2>&1) \
  || { echo "test-slurm: the local run failed (log: $OUT/local.log)"; exit 1; }
echo "test-slurm: the same target locally (--cores 2): $(( $(date +%s) - start )) s"

# Every file under results/ and figures/ of either run, byte for byte; SB3 zips member by member,
# less the wall-clock fields of their `data` JSON (scripts/same_outputs.py).
differ=0
for tree in results figures; do
  n=$(python3 scripts/same_outputs.py "$OUT/slurm/$tree" "$OUT/local/$tree" --skip '/timing\.json$' --skip '/monitor/' \
      | tee >(cat >&2) | grep -c differs || true)
  differ=$((differ + n))
done
echo "test-slurm: $differ output file(s) differ (timing.json and monitor logs, which hold wall times, left out)"

python3 scripts/slurm_usage.py "$OUT/slurm.log" --out "$OUT/slurm_usage.csv" \
  || echo "test-slurm: sacct gave no usage (is accounting on?)"

# Requeued mid-training (issue 70): the target through SLURM once more; as soon as a training run has
# written its first checkpoint, every running job is requeued (`scontrol requeue`: what preemption
# with PreemptMode=REQUEUE and a node failure do under the profile's slurm-requeue). SLURM kills the
# job and runs it again under the same id; the training resumes from its checkpoint, and the files
# must equal the local run's.
scratch "$OUT/requeue"
(cd "$OUT/requeue" && snakemake "$TARGET" --profile workflow/profiles/slurm --configfile "$CONFIG" \
   --jobs 2 --slurm-init-seconds-before-status-checks 5 --latency-wait 5 --retries 0 \
   >"$OUT/requeue.log" 2>&1) &
sm=$!
requeued=""
while kill -0 $sm 2>/dev/null && [ -z "$requeued" ]; do
  ck=$(find "$OUT/requeue/results" -path '*/checkpoints/*' \( -name 'step_*.zip' -o -name 'iter_*.pt' \
        -o -name 'episode_*.pt' \) 2>/dev/null | head -1)
  if [ -n "$ck" ]; then
    run_dir=$(dirname "$(dirname "$ck")")
    requeued=$(squeue -h -t RUNNING -o %i | tr '\n' ' ')
    [ -n "$requeued" ] && scontrol requeue $(echo $requeued | tr ' ' ',')
  fi
  sleep 0.2
done
wait $sm
rc=$?
echo "test-slurm: requeued job(s) ${requeued:-none} once ${run_dir:-?} had a checkpoint; snakemake exit $rc"
if [ $rc != 0 ] || [ -z "$requeued" ]; then tail -30 "$OUT/requeue.log"; exit 1; fi
resumed=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])).get('resumes',[]); print(' '.join(f\"{x['from']}:{'exact' if x['exact'] else 'INEXACT'}\" for x in r))" \
          "$run_dir/timing.json" 2>/dev/null || echo "?")
echo "test-slurm: $run_dir resumed from (step:kind) ${resumed:-nothing}"
requeue_differ=0
for tree in results figures; do
  n=$(python3 scripts/same_outputs.py "$OUT/requeue/$tree" "$OUT/local/$tree" --skip '/timing\.json$' --skip '/monitor/' \
      --skip '(^|/)\.[^/]*\.tmp$' --skip '\.state\.pkl$' --skip '\.replay\.pkl$' --skip '/command\.txt$' \
      | tee >(cat >&2) | grep -c differs || true)
  requeue_differ=$((requeue_differ + n))
done
echo "test-slurm: $requeue_differ output file(s) of the requeued run differ from the local run"
[ $differ = 0 ] && [ $requeue_differ = 0 ] && [ -n "$resumed" ] && ! echo "$resumed" | grep -q INEXACT
