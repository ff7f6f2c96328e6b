#!/usr/bin/env bash
# One prepared run of the CUDA checks of issue 31; every result lands under $OUT (8 files at most):
#   env.txt          device name, driver, torch / CUDA / numba versions
#   tests.txt        pytest -m cuda tests/test_cuda.py (and, if it failed, a rerun of the failures with
#                    warnings not turned into errors, to tell warnings from wrong results)
#   bridge.txt, bridge_<i>.csv  benchmarks/bench_bridge.py: the losses against the NT-Xent peers, B = 256 ... 8192,
#                    float32 and bfloat16, ms per forward + backward and peak memory
#   steps.txt/.csv   benchmarks/bench_steps.py: Table 6.8 in a full step (mini-batch MF on ML-100K-sized
#                    data, one LightGCN epoch on Gowalla-sized data), on the device
#   cpu.txt          the mini-batch MF steps on the same machine's CPU (baseline beside the device numbers)
#   bridge_tests.txt the existing bridge / LightGCN tests on this machine (where "auto" picks CUDA)
#
# Usage: OUT=folder benchmarks/gpu_check.sh [--device cpu|cuda] [--quick]
#   --device cpu --quick: the dry run of the same script on a machine without a GPU (small sizes).
# Environment: SECTIONS (default "env tests bridge steps cpu bridge_tests") selects the parts;
#   BRIDGE_RUNS (default "float32,bfloat16:<all B>") is a ';'-separated list of "dtypes:batches" runs of
#   bench_bridge (e.g. "float32:2048 4096 8192;bfloat16:256 512"), each with its own bridge_<i>.csv.
# Wheels of optional peers (pytorch-metric-learning, lightly) in .whl/ are installed to /tmp/site first.
set -u -o pipefail
DEVICE=cuda
QUICK=0
while [ $# -gt 0 ]; do
  case "$1" in
    --device) DEVICE="$2"; shift 2 ;;
    --quick) QUICK=1; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
OUT=${OUT:-/tmp/gpu_check_out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
if ls .whl/*.whl >/dev/null 2>&1; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
if [ "$QUICK" = 1 ]; then
  BATCH="64 128"; ROUNDS=2; INNER=2; REPS=1; SCALE=0.02; STEP_LOSSES="bpr infonce bcl"; THREADS=1
else
  BATCH="256 512 1024 2048 4096 8192"; ROUNDS=10; INNER=5; REPS=3; SCALE=1.0; STEP_LOSSES="bpr infonce dcl hcl dpl bcl"; THREADS=0
fi
SECTIONS=${SECTIONS:-env tests bridge steps cpu bridge_tests}
BRIDGE_RUNS=${BRIDGE_RUNS:-float32,bfloat16:$BATCH}
want() { case " $SECTIONS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
T0=$(date +%s)
stamp() { echo "== $1 ($(( $(date +%s) - T0 )) s since start)"; }

want env && {
  stamp env
  date -u
  nvidia-smi 2>&1 | head -15 || true
  $PY - <<'EOF'
import platform, os, torch, numpy, numba
print("python", platform.python_version(), "| torch", torch.__version__, "| CUDA (torch build)", torch.version.cuda,
      "| cudnn", torch.backends.cudnn.version(), "| numpy", numpy.__version__, "| numba", numba.__version__,
      "| cpus", os.cpu_count())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device:", torch.cuda.get_device_name(0), f"| {p.total_memory / 2**30:.1f} GiB | {p.multi_processor_count} SMs",
          f"| capability {p.major}.{p.minor}")
for m in ("pytorch_metric_learning", "lightly"):
    try:
        mod = __import__(m)
        print(m, getattr(mod, "__version__", "?"))
    except Exception as e:
        print(m, "not importable:", type(e).__name__, e)
EOF
  git log -1 --format='commit %H %s' 2>/dev/null || true
} 2>&1 | tee "$OUT/env.txt"

want tests && {
  stamp "pytest -m $DEVICE tests/test_cuda.py"
  if [ "$DEVICE" = cuda ]; then SEL=(-m cuda); else SEL=(-m "not cuda"); fi
  timeout 150 $PY -m pytest tests/test_cuda.py "${SEL[@]}" -q -rfEs -p no:randomly -o cache_dir=/tmp/pytest_cache --durations=8
  rc=$?
  echo "pytest exit code: $rc"
  if [ $rc -ne 0 ] && [ $rc -ne 5 ]; then
    stamp "rerun of the failures, warnings not errors"
    timeout 60 $PY -m pytest tests/test_cuda.py "${SEL[@]}" --lf -q -rfE -o cache_dir=/tmp/pytest_cache -W ignore::UserWarning \
      -W ignore::DeprecationWarning -W ignore::FutureWarning --tb=short
    echo "rerun exit code: $?"
  fi
} 2>&1 | tee "$OUT/tests.txt"

want bridge && {
  i=0
  KERNELS=--kernels
  IFS=';' read -ra RUNS <<<"$BRIDGE_RUNS"
  for spec in "${RUNS[@]}"; do
    i=$((i + 1))
    stamp "bench_bridge --device $DEVICE, run $i: $spec"
    # shellcheck disable=SC2086
    timeout 170 $PY benchmarks/bench_bridge.py --device "$DEVICE" --batch ${spec#*:} --dtype ${spec%%:*} --rounds $ROUNDS \
      --inner $INNER --part modules logits $KERNELS --csv "$OUT/bridge_$i.csv"
    echo "bench_bridge exit code: $?"
    KERNELS=
  done
} 2>&1 | tee "$OUT/bridge.txt"

want steps && {
  stamp "bench_steps --device $DEVICE"
  # shellcheck disable=SC2086
  timeout 170 $PY benchmarks/bench_steps.py --device "$DEVICE" --losses $STEP_LOSSES --reps $REPS --lightgcn-reps 2 \
    --gowalla-scale $SCALE --csv "$OUT/steps.csv"
  echo "bench_steps exit code: $?"
} 2>&1 | tee "$OUT/steps.txt"

want cpu && {
  stamp "bench_steps --device cpu --part mf (same machine)"
  # shellcheck disable=SC2086
  timeout 60 $PY benchmarks/bench_steps.py --device cpu --part mf --losses $STEP_LOSSES --reps $REPS --threads $THREADS
  echo "cpu steps exit code: $?"
} 2>&1 | tee "$OUT/cpu.txt"

if [ "$DEVICE" = cuda ] && want bridge_tests; then
  {
    stamp "existing bridge tests on this machine"
    timeout 100 $PY -m pytest tests/test_bridge_functional.py tests/test_bridge_modules.py tests/test_lightgcn.py -q -x \
      -p no:cacheprovider --durations=5 2>&1 | tail -25
    echo "bridge tests exit code: $?"
  } 2>&1 | tee "$OUT/bridge_tests.txt"
fi
stamp done
