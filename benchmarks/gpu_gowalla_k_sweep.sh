#!/usr/bin/env bash
# One prepared GPU run of issue 29's K sweep on Gowalla's standard (LightGCN) split: does Wu et al.'s K*, predicted from
# the K = 1 model's validation AUC (read by blocks of users: no n_users x n_items array), fall within one grid step of
# the best K? Protocol of `negtheory reproduce wu-k-sweep` (InfoNCE-MF, d = 32, Adam lr 1e-3, batch 1024, 10 % of train
# held out per seed, best validation epoch kept). Results under $OUT:
#   env.txt        device, driver, versions, stamps
#   sweep.txt      the run's log; wu_k_sweep.md / .csv / .png when every run finished
#   runs.tgz       OUT_RUNS/runs/*.json: every finished (K, seed) run (a later call with the same OUT_RUNS resumes)
#   gpu_util.txt   nvidia-smi dmon while the runs go
# Usage: OUT=folder DATA=folder-with-train.txt.gz-test.txt.gz KS="1 4 16 64 256" SEEDS=1 EPOCHS=20 BUDGET=seconds \
#        benchmarks/gpu_gowalla_k_sweep.sh
# Dry run without a GPU: DEVICE=cpu EPOCHS=2 DATA=tiny-folder BUDGET=60 benchmarks/gpu_gowalla_k_sweep.sh
set -u -o pipefail
OUT=${OUT:-/tmp/gpu_gowalla_k_sweep_out}
DATA=${DATA:-.gpu_data/gowalla}
BUDGET=${BUDGET:-420}
DEVICE=${DEVICE:-cuda}
KS=${KS:-1 2 4 8 16 32 64 128 256}
SEEDS=${SEEDS:-1}
EPOCHS=${EPOCHS:-20}
JOBS=${JOBS:-9}
OUT_RUNS=${OUT_RUNS:-/tmp/k_sweep_gowalla}
PY=${PYTHON:-python3}
source "$(dirname "$0")/_gpu_env.sh"
(command -v nvidia-smi >/dev/null && timeout $((BUDGET + 30)) nvidia-smi dmon -s um -d 5 >"$OUT/gpu_util.txt" 2>&1) &
stamp sweep | tee -a "$OUT/env.txt"
# shellcheck disable=SC2086  # KS is a word list
timeout "$BUDGET" $PY -m negtheory reproduce wu-k-sweep --train "$DATA/train.txt.gz" --test "$DATA/test.txt.gz" \
  --format lightgcn --ks $KS --seeds "$SEEDS" --epochs "$EPOCHS" --device "$DEVICE" --jobs "$JOBS" --out "$OUT_RUNS" \
  --quiet >"$OUT/sweep.txt" 2>&1
echo "wu-k-sweep exit $? (124: the budget ran out; finished runs are kept)" | tee -a "$OUT/env.txt"
for f in wu_k_sweep.md wu_k_sweep.csv wu_k_sweep.png; do [ -f "$OUT_RUNS/$f" ] && cp "$OUT_RUNS/$f" "$OUT/"; done
tar czf "$OUT/runs.tgz" -C "$OUT_RUNS" runs 2>/dev/null
stamp done | tee -a "$OUT/env.txt"
