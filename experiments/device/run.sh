#!/usr/bin/env bash
# The GPU checklist in one device call, from the repository root there (docs/benchmark.md, "On a GPU"):
#   the equivalence model's grouped 5-fold CV (issue 53's sweep, variant mixed) and its final model on every row on
#   the GPU (trained over MiniLM's bf16 rounding: to ship it, carry the exact fp32 MiniLM, 75 MB xz'd, in two
#   back-to-back calls, since a warm machine keeps what the first left, and train again), the model tests on cuda
#   and on the device's CPU (a test that fails on both fails for the weights' bf16 rounding, not for the GPU),
#   CPU against GPU scores (--decide) on the dev suite, benchmarks/bench_score.py with a 100,000-row stream.
# Needs .dev/pack from experiments/device/pack.py and .dev/whl (nltk, rapidfuzz for Python 3.12). Everything made
# comes back as $OUT/results.tar.gz and $OUT/log.txt; the script stops itself DEADLINE seconds after it starts.
set -u
START=$(date +%s)
DEADLINE=${DEADLINE:-470}
left() { echo $(( DEADLINE - ($(date +%s) - START) )); }
R=/tmp/results
mkdir -p "$R"
LOG=$OUT/log.txt
say() { echo "[$(( $(date +%s) - START ))s] $*" | tee -a "$LOG"; }
finish() {
  say "packing results"
  tar --exclude='*.safetensors' -czf "$OUT/results.tar.gz" -C /tmp results
  say "done"
  exit 0
}

say "setup"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >>"$LOG" 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .dev/whl/*.whl >>"$LOG" 2>&1 || finish
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=2
python3 experiments/device/unpack.py .dev/pack --site /tmp/site --model /tmp/minilm --checkpoints checkpoints \
  >>"$LOG" 2>&1 || finish
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >>"$LOG" 2>&1 || finish
python3 -c "import torch, transformers, kpqa; print('torch', torch.__version__, 'transformers', transformers.__version__,
'cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0), 'cpus', __import__('os').cpu_count())" >>"$LOG" 2>&1
D=.dev/pack/data

say "training: mixed, 5 folds in parallel on the GPU"
COMMON=(--data $D/evouna_nq_train.csv --data $D/evouna_tq_dev.csv --data $D/truthfulqa_train.csv --data $D/swaps.csv
        --data $D/contrastive3_train.csv --train-only $D/contrastive3_train.csv --seed 13 --device cuda
        --max-references 3 --max-length 128 --batch-size 32 --dev-share 0.05 --mix 1,1,1,0.5,1:1000
        --init checkpoints/equivalence --epochs 2 --lr 5e-5)
TRAIN=()
for fold in 0 1 2 3 4; do
  timeout -k 5 $(( $(left) - 40 )) python3 -m kpqa train-equivalence "${COMMON[@]}" --folds 5 --fold $fold --output $R/mixed \
    >$R/train-$fold.log 2>&1 &
  TRAIN+=($!)
done

# the final model on every row (no --folds), beside the folds: its fp16 weights come back xz'd in 15 MB parts
# ($OUT takes files of 16 MiB at most): `cat final.xz.* | xz -d > weights.safetensors` beside its metadata.json
timeout -k 5 $(( $(left) - 40 )) python3 -m kpqa train-equivalence "${COMMON[@]}" --output $R/final \
  >$R/train-final.log 2>&1 &
FINAL=$!
say "model tests on cuda and on the device's CPU"
PYTEST=(python3 -m pytest -q -m model -n 3 -p no:cacheprovider --continue-on-collection-errors -o addopts= -rfE)
timeout -s INT -k 10 $(( $(left) - 60 )) "${PYTEST[@]}" --junitxml=$R/tests-cuda.xml >$R/tests-cuda.log 2>&1 &
T1=$!
CUDA_VISIBLE_DEVICES= timeout -s INT -k 10 $(( $(left) - 60 )) "${PYTEST[@]}" --junitxml=$R/tests-cpu.xml \
  >$R/tests-cpu.log 2>&1 &
T2=$!

say "CPU against GPU scores"
for device in cpu cuda; do
  (for f in marco_all nrqa_mhpgm evouna_tq_dev truthfulqa_1000; do
     timeout $(( $(left) - 30 )) python3 -m kpqa score $D/$f.csv --decide --device $device --quiet -o $R/score-$device-$f.csv \
       >$R/score-$device-$f.log 2>&1
   done) &
done

for pid in "${TRAIN[@]}"; do
  [ "$(left)" -gt 190 ] || break
  while kill -0 "$pid" 2>/dev/null && [ "$(left)" -gt 190 ]; do sleep 2; done
done
say "training finished or out of time; bench (100,000-row stream on cuda)"
timeout -s INT -k 5 $(( $(left) - 20 )) python3 benchmarks/bench_score.py --data $D/marco_all.csv --device cuda \
  --rows 1000 --repeat 2 --skip-baseline --batch-size 256 --stream-rows 100000 >$R/bench.log 2>&1
say "bench rc $?"
wait $T1 $T2
say "tests rc: cuda $(tail -1 $R/tests-cuda.log) / cpu $(tail -1 $R/tests-cpu.log)"
for pid in "${TRAIN[@]}"; do wait "$pid"; done
wait $FINAL
ls $R/mixed/*/heldout.csv $R/final >>"$LOG" 2>&1
[ -f $R/final/weights.safetensors ] && xz -T0 -c $R/final/weights.safetensors | split -b 15M - "$OUT/final.xz."
nvidia-smi --query-gpu=memory.used --format=csv >>"$LOG" 2>&1
finish
