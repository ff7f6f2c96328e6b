#!/usr/bin/env bash
# One prepared GPU run for issue 29's Gowalla ladder, second session: the BPR goal and the validation-chosen
# contrastive ablations, after the per-step cost cuts (batch L2 by row counts, cosine rows normalised once
# per table, bmm scores, no host-device read per step). Results under $OUT:
#   env.txt           device, driver, torch / numpy / numba versions, stamps
#   step_profile.txt  benchmarks/gpu_step_profile.py: ms per step and the top device operators (bpr-300, infonce)
#   tests.txt         tests/test_device_sampling.py and tests/test_cuda.py on this machine (CUDA parameters)
#   ladder.txt        gowalla-benchmark --rungs $RUNGS, $SEEDS seeds each (default 1), sharing the GPU, $BUDGET s per run
#   gpu_util.txt      nvidia-smi dmon during the ladder
#   results.tgz       the ladder's output folder (CSV, markdown, figure, runs/*.json with the curves)
#   histories.json    each run's evaluations read from its checkpoint (kept even when the ladder is cut off)
# Usage: OUT=folder DATA=folder-with-train.txt.gz-test.txt.gz BUDGET=seconds benchmarks/gpu_gowalla_ablation.sh
#   (RUNGS="..." SEEDS=3 pick the runs; VALID=0 EPOCHS=40 run the refit protocol for a fixed length; PROFILE=0 skips
#   the step profile)
# Dry run without a GPU: DEVICE=cpu QUICK=--quick DATA=tiny-folder BUDGET=30 benchmarks/gpu_gowalla_ablation.sh
set -u -o pipefail
OUT=${OUT:-/tmp/gpu_gowalla_ablation_out}
DATA=${DATA:-.gpu_data/gowalla}
BUDGET=${BUDGET:-360}
DEVICE=${DEVICE:-cuda}
QUICK=${QUICK:-}
RUNGS=${RUNGS:-bpr-300 infonce-t0.05 infonce-t0.2 dcl-tau0.001}
SEEDS=${SEEDS:-1}
VALID=${VALID:-0.05}   # 0: the refit protocol (every training pair, final epoch; set EPOCHS, e.g. 30 or 40)
EPOCHS=${EPOCHS:-}
PROFILE=${PROFILE:-1}
PY=${PYTHON:-python3}
source "$(dirname "$0")/_gpu_env.sh"
if [ -z "$QUICK" ] && [ "$PROFILE" != 0 ]; then
  stamp profile | tee -a "$OUT/env.txt"
  timeout 60 $PY benchmarks/gpu_step_profile.py "$DATA" --rungs bpr-300 infonce --device "$DEVICE" >"$OUT/step_profile.txt" 2>&1
fi
(timeout 200 $PY -m pytest -q -p no:cacheprovider tests/test_device_sampling.py tests/test_cuda.py -rs >"$OUT/tests.txt" 2>&1) &
PT=$!
(command -v nvidia-smi >/dev/null && timeout $((BUDGET + 120)) nvidia-smi dmon -s um -d 5 >"$OUT/gpu_util.txt" 2>&1) &
stamp ladder | tee -a "$OUT/env.txt"
N=$(( $(echo $RUNGS | wc -w) * SEEDS ))
timeout $((BUDGET + 150)) $PY -m negtheory reproduce gowalla-benchmark --data "$DATA" --device "$DEVICE" --rungs $RUNGS \
  --seeds "$SEEDS" --jobs "$N" --time-budget "$BUDGET" --eval-every 5 --valid-fraction "$VALID" ${EPOCHS:+--epochs "$EPOCHS"} \
  --quiet $QUICK --checkpoints --out /tmp/gb_abl >"$OUT/ladder.txt" 2>&1
echo "ladder exit $?" | tee -a "$OUT/env.txt"
# every run's evaluations as its last checkpoint holds them: the curves survive a ladder stopped by the timeout
$PY - "$OUT/histories.json" /tmp/gb_abl/checkpoints/*.pt <<'PYEOF' 2>&1 | tee -a "$OUT/env.txt"
import json, sys, torch
out = {}
for f in sys.argv[2:]:
    ck = torch.load(f, map_location="cpu", weights_only=False)
    out[f.rsplit("/", 1)[-1]] = {k: ck.get(k) for k in ("epoch", "history", "seconds", "finished")}
json.dump(out, open(sys.argv[1], "w"), indent=1, default=str)
print("histories", len(out))
PYEOF
wait $PT
tar czf "$OUT/results.tgz" -C /tmp gb_abl 2>/dev/null
stamp done | tee -a "$OUT/env.txt"
