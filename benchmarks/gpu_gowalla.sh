#!/usr/bin/env bash
# One prepared GPU run of issue 29's Gowalla ladder (negtheory reproduce gowalla-benchmark); results under $OUT:
#   env.txt        device, driver, torch / numpy / numba versions
#   tests.txt      tests/test_device_sampling.py on this machine (the device RNS and device top-k against
#                  their reference versions, with the CUDA parameter) -- also warms numba's cache
#   ladder_a.txt   rungs bpr-300 and infonce, 3 seeds (the issue's two goals)
#   ladder_b.txt   rungs bpr, dcl, hcl, bcl, 2 seeds (run beside a, sharing the GPU)
#   gpu_util.txt   nvidia-smi dmon while the ladders run (utilisation, memory)
#   a.md, b.md     the two ladders' tables; results.tgz: both output folders (CSV, runs/*.json, figures)
# Usage: OUT=folder DATA=folder-with-train.txt.gz-test.txt.gz BUDGET=seconds-per-run benchmarks/gpu_gowalla.sh
# Dry run on a machine without a GPU: DEVICE=cpu QUICK=--quick DATA=tiny-folder benchmarks/gpu_gowalla.sh
set -u -o pipefail
OUT=${OUT:-/tmp/gpu_gowalla_out}
DATA=${DATA:-.gpu_data/gowalla}
BUDGET=${BUDGET:-300}
DEVICE=${DEVICE:-cuda}
QUICK=${QUICK:-}
PY=${PYTHON:-python3}
source "$(dirname "$0")/_gpu_env.sh"
{
  stamp tests
  timeout 120 $PY -m pytest -q -p no:cacheprovider tests/test_device_sampling.py -rs 2>&1 | tail -15
} >"$OUT/tests.txt" 2>&1
(command -v nvidia-smi >/dev/null && timeout $((BUDGET + 200)) nvidia-smi dmon -s um -d 5 >"$OUT/gpu_util.txt" 2>&1) &
COMMON=(--data "$DATA" --device "$DEVICE" --time-budget "$BUDGET" --eval-every 5 --quiet $QUICK)
stamp ladders | tee -a "$OUT/env.txt"
timeout $((BUDGET + 180)) $PY -m negtheory reproduce gowalla-benchmark "${COMMON[@]}" --rungs bpr-300 infonce --seeds 3 \
  --jobs 6 --out /tmp/gb_a >"$OUT/ladder_a.txt" 2>&1 &
PA=$!
timeout $((BUDGET + 180)) $PY -m negtheory reproduce gowalla-benchmark "${COMMON[@]}" --rungs bpr dcl hcl bcl --seeds 2 \
  --jobs 8 --out /tmp/gb_b >"$OUT/ladder_b.txt" 2>&1 &
PB=$!
wait $PA; echo "ladder a exit $?" | tee -a "$OUT/env.txt"
wait $PB; echo "ladder b exit $?" | tee -a "$OUT/env.txt"
cp /tmp/gb_a/gowalla_benchmark.md "$OUT/a.md" 2>/dev/null
cp /tmp/gb_b/gowalla_benchmark.md "$OUT/b.md" 2>/dev/null
tar czf "$OUT/results.tgz" -C /tmp gb_a gb_b 2>/dev/null
stamp done | tee -a "$OUT/env.txt"
