#!/usr/bin/env bash
# `npm run setup`: installs everything Mnemo's tests need, each before anything uses it, so that
# `npm test` passes on a machine that has never seen the project. `npm test` runs it first.
# Idempotent; each step checks before it installs.
#   1. Debian packages (scripts/system-deps.sh): 7-Zip, Chromium, CJK fonts, ripgrep, build headers
#   2. npm packages (npm ci, when package-lock.json changed)
#   3. the embedding model the tests use (scripts/fetch-model.sh -> $MNEMO_TEST_MODEL_DIR)
#   4. the editor test harness: code-server, playwright-core (test/editor/setup.sh); skipped when
#      MNEMO_SKIP_EDITOR_TESTS=1
set -euo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip
MODELS="${MNEMO_TEST_MODEL_DIR:-$PWD/.cache/models}"

echo "== setup: system packages"
bash scripts/system-deps.sh
echo "== setup: npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "node_modules up to date"
fi
echo "== setup: embedding model ($MODELS)"
bash scripts/fetch-model.sh "$MODELS"
if [ "${MNEMO_SKIP_EDITOR_TESTS:-}" != "1" ]; then
  echo "== setup: editor test harness"
  bash test/editor/setup.sh
fi
