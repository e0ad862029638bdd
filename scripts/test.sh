#!/usr/bin/env bash
# The one test command (`npm test`): installs what it needs, builds, then runs unit, sidecar,
# extension-host and UI tests (in the oldest VS Code engines.vscode allows and in today's), and ends with
# the 10 slowest tests, the total time and one line "N passed, N failed".
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

step "install (npm run setup: system packages, npm packages, the model, the editor harness)"
# Everything any phase needs is installed here, before the first test: a fresh machine has no 7-Zip,
# Chromium, code-server or model, and a phase must never depend on a later phase's install.
bash scripts/setup.sh || { fail_step "setup"; echo "$PASSED passed, $FAILED failed"; exit 1; }

step "build, typecheck, lint, format"
npm run --silent build || fail_step "build"
npm run --silent typecheck && PASSED=$((PASSED + 1)) || fail_step "typecheck"
npm run --silent lint && PASSED=$((PASSED + 1)) || fail_step "lint"
# Prettier (printWidth 110, .prettierrc.json): a file out of format fails here; `npm run format` fixes it.
npm run --silent format:check && PASSED=$((PASSED + 1)) || fail_step "format (run npm run format)"

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
run_node_tests reliability test/reliability/*.test.ts

if [ "${MNEMO_SKIP_EDITOR_TESTS:-}" != "1" ]; then
  step "packaging the VSIX the editor tests install (npm run package)"
  if npm run --silent package; then
    VSIX="$(ls -t "$ROOT"/*.vsix | head -1)"
    # The oldest VS Code that engines.vscode allows, then today's (test/editor/lib/builds.mjs).
    for build in oldest latest; do
      step "editor tests on the $build VS Code (code-server + headless Chromium)"
      node test/editor/run.mjs --vscode "$build" --vsix "$VSIX" 2>&1 | tee "$ART/editor-$build.log"
      line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ART/editor-$build.log" | tail -1)
      if [ -n "$line" ]; then
        PASSED=$((PASSED + $(echo "$line" | awk '{print $1}')))
        FAILED=$((FAILED + $(echo "$line" | awk '{print $3}')))
      else
        fail_step "editor tests on the $build VS Code produced no result line"
      fi
    done
  else
    fail_step "packaging the VSIX (npm run package)"
  fi
fi

node scripts/slowest.mjs "$ART" "$SECONDS" 10
echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
