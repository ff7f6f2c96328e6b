# Sourced by the prepared GPU scripts (benchmarks/gpu_gowalla*.sh): the common settings, the `stamp` helper and
# $OUT/env.txt (device, driver, versions, commit). Expects OUT and PY to be set.
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
T0=$(date +%s)
stamp() { echo "== $1 ($(( $(date +%s) - T0 )) s since start)"; }
{
  stamp env
  nvidia-smi -L 2>&1 || true
  $PY -c "import torch, numpy, numba, platform; print('python', platform.python_version(), 'torch', torch.__version__,
'numpy', numpy.__version__, 'numba', numba.__version__, 'cuda', torch.cuda.is_available() and torch.cuda.get_device_name(0))"
  git log -1 --format='commit %H %s' 2>/dev/null || true
} >"$OUT/env.txt" 2>&1
