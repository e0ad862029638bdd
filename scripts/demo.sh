#!/usr/bin/env bash
# Mnemo's main job on its embedded defaults, from a fresh clone: install, build, get a real embedding
# model (hub download first, registry package as the fallback), start the embedded Chroma server,
# learn from the bundled sample sessions, and answer recalls.
set -euo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== Installing dependencies"
  npm ci --no-audit --no-fund
fi
echo "== Building"
npm run --silent build

MODELS="${MNEMO_DEMO_MODELS:-$PWD/.cache/models}"
echo "== Getting the embedding model into $MODELS"
bash scripts/fetch-model.sh "$MODELS" --with-multilingual
if [ -s "$MODELS/Xenova/paraphrase-multilingual-MiniLM-L12-v2/config.json" ]; then
  export MNEMO_EMBEDDING_MODEL=Xenova/paraphrase-multilingual-MiniLM-L12-v2
else
  echo "   (the multilingual default could not be downloaded here; using all-MiniLM-L6-v2 from the registry)"
  export MNEMO_EMBEDDING_MODEL=Xenova/all-MiniLM-L6-v2
fi
export MNEMO_EMBEDDING_MODEL_PATH="$MODELS"
export MNEMO_DATA_DIR="${MNEMO_DATA_DIR:-$PWD/.mnemo-dev/demo}"
echo "== Data in $MNEMO_DATA_DIR"

mnemo() { node dist/cli.js "$@"; }
for f in samples/sessions/*.json; do
  echo
  echo "== mnemo ingest --project demo --explain $f"
  mnemo ingest --project demo --explain "$f"
done
echo
echo "== mnemo recall --project demo \"PLC-3000 又连不上了，超时设多少？\""
mnemo recall --project demo "PLC-3000 又连不上了，超时设多少？"
echo
echo "== mnemo recall --project demo --json \"which editor should you use?\""
mnemo recall --project demo --json "which editor should you use?"
echo
echo "== mnemo stats"
mnemo stats
