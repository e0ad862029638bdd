/**
 * One settings path: package.json `contributes.configuration` holds the defaults; the fallbacks of the
 * extension (src/config.ts, through sidecar/shared/settings.ts) and of the sidecar (sidecar/config.ts,
 * lifecycle/decay.ts) must say the same, and a setting keeps its name when it crosses to the sidecar.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_PIPELINE, DEFAULT_RECALL, resolveConfig } from '../../sidecar/config';
import { DEFAULT_DECAY } from '../../sidecar/lifecycle/decay';
import { LLM_PRESET_NAMES, LLM_PRESETS } from '../../sidecar/shared/llmPresets';
import { SETTING_DEFAULTS } from '../../sidecar/shared/settings';

const REPO = join(__dirname, '..', '..');

type Property = { default?: unknown; enum?: unknown[] };
function manifest(): Record<string, Property> {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    contributes: {
      configuration: { properties: Record<string, Property> } | { properties: Record<string, Property> }[];
    };
  };
  const sections = Array.isArray(pkg.contributes.configuration)
    ? pkg.contributes.configuration
    : [pkg.contributes.configuration];
  return Object.assign({}, ...sections.map((s) => s.properties)) as Record<string, Property>;
}

test('the shared table of defaults is exactly package.json contributes.configuration', () => {
  const props = manifest();
  const fromManifest = Object.fromEntries(
    Object.entries(props).map(([k, v]) => [k.replace(/^mnemo\./, ''), v.default]),
  );
  assert.deepEqual({ ...SETTING_DEFAULTS }, fromManifest);
});

test('the sidecar fills what the extension leaves out with the same defaults', () => {
  const d = SETTING_DEFAULTS;
  assert.deepEqual(DEFAULT_PIPELINE, {
    dedupDistance: d['pipeline.dedupDistance'],
    reviewScoreThreshold: d['pipeline.reviewScoreThreshold'],
  });
  assert.deepEqual(
    {
      topK: DEFAULT_RECALL.topK,
      minConfidence: DEFAULT_RECALL.minConfidence,
      tokenBudget: DEFAULT_RECALL.tokenBudget,
    },
    {
      topK: d['recall.topK'],
      minConfidence: d['recall.minConfidence'],
      tokenBudget: d['recall.tokenBudget'],
    },
  );
  assert.deepEqual(DEFAULT_DECAY, {
    factor: d['decay.factor'],
    confirmedFactor: d['decay.confirmedFactor'],
    floor: d['decay.floor'],
  });
  // resolveConfig with nothing given and a clean environment: every setting at its manifest default.
  const c = resolveConfig({ dataDir: '/tmp/mnemo-settings-test', user: 'tester@ci' }, {});
  assert.equal(c.pipeline.dedupDistance, d['pipeline.dedupDistance']);
  assert.equal(c.pipeline.reviewScoreThreshold, d['pipeline.reviewScoreThreshold']);
  assert.equal(c.recall.topK, d['recall.topK']);
  assert.equal(c.recall.minConfidence, d['recall.minConfidence']);
  assert.equal(c.recall.tokenBudget, d['recall.tokenBudget']);
  assert.deepEqual(c.decay, DEFAULT_DECAY);
  assert.equal(c.backup.schedule, d['backup.schedule']);
  assert.equal(c.backup.keep, d['backup.keep']);
  assert.equal(c.embedding.provider, d['embedding.provider']);
  assert.equal(c.llm.provider, d['llm.provider']);
  assert.equal(c.llm.preset, d['llm.preset']);
});

test('settings keep their names across the boundary (confirmedFactor, schedule)', () => {
  const c = resolveConfig(
    { dataDir: '/tmp/mnemo-settings-test', decay: { confirmedFactor: 0.5 }, backup: { schedule: 'weekly' } },
    {},
  );
  assert.equal(c.decay.confirmedFactor, 0.5);
  assert.equal(c.backup.schedule, 'weekly');
  const client = readFileSync(join(REPO, 'src', 'client.ts'), 'utf8');
  assert.match(client, /confirmedFactor: config\.decay\.confirmedFactor\(\)/);
  assert.match(client, /schedule: config\.backup\.schedule\(\)/);
});

test('the extension reads settings only through keys of the shared table, with no fallbacks of its own', () => {
  const src = readFileSync(join(REPO, 'src', 'config.ts'), 'utf8');
  const keys = [...src.matchAll(/\b(?:num|str|bool|oneOf(?:<[^>]+>)?)\('([^']+)'/g)].map((m) => m[1]!);
  assert.ok(keys.length >= 25, `expected the typed getters, found ${keys.length}`);
  for (const k of keys)
    assert.ok(k in SETTING_DEFAULTS, `src/config.ts reads ${k}, which package.json does not declare`);
  // The old style `str('llm.model', '')` / `bool('x', true)` carried a second default.
  assert.doesNotMatch(src, /\b(?:str|bool)\('[^']+',/);
});

test('the LLM presets live once: package.json lists their names, the local one is on 127.0.0.1', () => {
  assert.deepEqual(manifest()['mnemo.llm.preset']!.enum, [...LLM_PRESET_NAMES]);
  assert.match(LLM_PRESETS.ollama.baseUrl, /^http:\/\/127\.0\.0\.1:/);
  for (const dir of ['src', 'sidecar']) {
    const { execSync } = require('node:child_process') as typeof import('node:child_process');
    const copies = execSync(`grep -rln "qwen2.5:7b" ${join(REPO, dir)} || true`)
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean);
    assert.ok(
      copies.every((f) => f.endsWith(join('shared', 'llmPresets.ts'))),
      `a second copy of the presets: ${copies.join(', ')}`,
    );
  }
});
