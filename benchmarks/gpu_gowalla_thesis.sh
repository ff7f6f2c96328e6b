#!/usr/bin/env bash
# One prepared GPU run of issue 29's Gowalla rows of thesis Tables 5.2 / 6.3 (MF, mini-batch losses; LightGCN with
# MODELS="mf lightgcn"), the thesis's
# protocol: every interaction pooled and split 80/20 with seed 0 (negtheory.recsys.datasets.thesis_split), 200 epochs,
# batch 1024, N = 5 uniform negatives, final epoch. Table 5.2's BPR row is batch-1 SGD (numba, CPU only): not run here.
# Results under $OUT:
#   env.txt        device, driver, torch / numpy / numba versions, stamps
#   estimate.txt   thesis-tables --estimate on this device: one timed epoch per run, x 200 epochs x seeds
#   tables.txt     the run's log; tables.md / verdicts_strict.csv / thesis_tables.csv when every run finished
#   runs.tgz       OUT_RUNS/runs/*.json: every finished run (a later call with the same OUT_RUNS reuses them)
#   gpu_util.txt   nvidia-smi dmon while the runs go
# Usage: OUT=folder DATA=folder-with-train.txt.gz-test.txt.gz SEEDS=1 METHODS="InfoNCE DCL HCL DPL BCL" \
#        BUDGET=seconds benchmarks/gpu_gowalla_thesis.sh
# Dry run without a GPU: DEVICE=cpu EPOCHS="--epochs 2" DATA=tiny-folder BUDGET=60 benchmarks/gpu_gowalla_thesis.sh
set -u -o pipefail
OUT=${OUT:-/tmp/gpu_gowalla_thesis_out}
DATA=${DATA:-.gpu_data/gowalla}
BUDGET=${BUDGET:-420}
DEVICE=${DEVICE:-cuda}
SEEDS=${SEEDS:-1}
METHODS=${METHODS:-InfoNCE DCL HCL DPL BCL}
MODELS=${MODELS:-mf}  # "mf lightgcn": also the LightGCN rows (100 epochs, the whole graph propagated per step)
JOBS=${JOBS:-8}
EPOCHS=${EPOCHS:-}
OUT_RUNS=${OUT_RUNS:-/tmp/tt_gowalla}
PY=${PYTHON:-python3}
source "$(dirname "$0")/_gpu_env.sh"
# shellcheck disable=SC2086  # METHODS, MODELS and EPOCHS are word lists
COMMON=(--data "$DATA" --dataset gowalla --tables 5.2 6.3 --models $MODELS --methods $METHODS --seeds "$SEEDS" --device "$DEVICE" $EPOCHS
  --jobs "$JOBS" --out "$OUT_RUNS" --quiet)
stamp estimate | tee -a "$OUT/env.txt"
timeout 240 $PY -m negtheory reproduce thesis-tables "${COMMON[@]}" --estimate >"$OUT/estimate.txt" 2>&1
(command -v nvidia-smi >/dev/null && timeout $((BUDGET + 30)) nvidia-smi dmon -s um -d 5 >"$OUT/gpu_util.txt" 2>&1) &
stamp runs | tee -a "$OUT/env.txt"
timeout "$BUDGET" $PY -m negtheory reproduce thesis-tables "${COMMON[@]}" >"$OUT/tables.txt" 2>&1
echo "thesis-tables exit $? (124: the budget ran out; finished runs are kept)" | tee -a "$OUT/env.txt"
for f in thesis_tables.md verdicts_strict.csv thesis_tables.csv; do
  [ -f "$OUT_RUNS/$f" ] && cp "$OUT_RUNS/$f" "$OUT/${f/thesis_tables.md/tables.md}"
done
tar czf "$OUT/runs.tgz" -C "$OUT_RUNS" runs 2>/dev/null
stamp done | tee -a "$OUT/env.txt"
