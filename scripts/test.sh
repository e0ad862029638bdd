#!/usr/bin/env bash
# The one test command (`npm test`): installs what it needs, builds, then runs unit, sidecar,
# extension-host and UI tests, and ends with one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ART="$ROOT/test-artifacts"
rm -rf "$ART"; mkdir -p "$ART"
export ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip
export MNEMO_TEST_MODEL_DIR="${MNEMO_TEST_MODEL_DIR:-$ROOT/.cache/models}"

PASSED=0
FAILED=0
step() { printf '\n=== %s\n' "$*"; }
fail_step() { echo "FAILED: $1"; FAILED=$((FAILED + 1)); }

# Counts from a TAP file written by node's test runner.
count_tap() {
  local f="$1" p f2
  p=$(grep -E '^# pass [0-9]+' "$f" | tail -1 | awk '{print $3}')
  f2=$(grep -E '^# fail [0-9]+' "$f" | tail -1 | awk '{print $3}')
  PASSED=$((PASSED + ${p:-0}))
  FAILED=$((FAILED + ${f2:-0}))
  if [ -z "$p" ]; then echo "no test results in $f"; FAILED=$((FAILED + 1)); fi
}

step "install"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund || { fail_step "npm ci"; echo "$PASSED passed, $FAILED failed"; exit 1; }
fi
bash scripts/fetch-model.sh "$MNEMO_TEST_MODEL_DIR" || fail_step "fetch-model"

step "build, typecheck, lint"
npm run --silent build || fail_step "build"
npm run --silent typecheck && PASSED=$((PASSED + 1)) || fail_step "typecheck"
npm run --silent lint && PASSED=$((PASSED + 1)) || fail_step "lint"

run_node_tests() {
  local name="$1"; shift
  step "$name tests"
  node --import tsx --test --test-concurrency=1 --test-timeout=600000 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$ART/$name.tap" "$@"
  count_tap "$ART/$name.tap"
}

run_node_tests unit test/unit/*.test.ts
run_node_tests sidecar test/sidecar/*.test.ts

if [ "${MNEMO_SKIP_EDITOR_TESTS:-}" != "1" ]; then
  step "editor tests (code-server + headless Chromium)"
  if bash test/editor/setup.sh && npm run --silent package; then
    node test/editor/run.mjs --vsix "$(ls -t "$ROOT"/*.vsix | head -1)" 2>&1 | tee "$ART/editor.log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ART/editor.log" | tail -1)
    if [ -n "$line" ]; then
      PASSED=$((PASSED + $(echo "$line" | awk '{print $1}')))
      FAILED=$((FAILED + $(echo "$line" | awk '{print $3}')))
    else
      fail_step "editor tests produced no result line"
    fi
  else
    fail_step "editor test setup or packaging"
  fi
fi

echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
