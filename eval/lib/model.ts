/** The eval's embedding model: the test model folder, fetched with scripts/fetch-model.sh when absent. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { TEST_MODEL, testModelPath } from '../../test/support/sidecarSession';

const REPO = path.resolve(__dirname, '..', '..');
const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** The model folder, fetched when absent; exits with one sentence when it cannot be had. */
export function ensureModel(): string {
  const dir = testModelPath();
  const model = path.join(dir, ...TEST_MODEL.split('/'));
  const complete = (): boolean =>
    existsSync(path.join(model, 'tokenizer.json')) &&
    (existsSync(path.join(model, 'onnx', 'model_quantized.onnx')) ||
      existsSync(path.join(model, 'onnx', 'model.onnx')));
  if (complete()) return dir;
  log(`The embedding model is not in ${model}: fetching it with scripts/fetch-model.sh`);
  try {
    execFileSync('bash', [path.join(REPO, 'scripts', 'fetch-model.sh'), dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } catch {
    // reported below
  }
  if (!complete()) {
    log(
      `The embedding model ${TEST_MODEL} is missing from ${dir} and could not be fetched: run "bash scripts/fetch-model.sh ${dir}" (or set MNEMO_TEST_MODEL_DIR to a folder that holds it) and try again.`,
    );
    process.exit(2);
  }
  return dir;
}
