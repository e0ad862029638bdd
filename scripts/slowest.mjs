#!/usr/bin/env node
// The end of `npm test`: the slowest tests of the run and the total time, from what the phases wrote to
// test-artifacts/ (node's TAP files per phase, the editor harness's summary.json per VS Code build).
//   node scripts/slowest.mjs ARTIFACTS_DIR TOTAL_SECONDS [N=10]
import fs from 'node:fs';
import path from 'node:path';

const [dir = 'test-artifacts', totalArg = '', nArg = '10'] = process.argv.slice(2);

/** Tests (not suites) of a TAP file by node's test runner: { name, ms }, names joined by " › " per level. */
function tapTests(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = [];
  const stack = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^( *)(?:not )?ok \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$/.exec(lines[i]);
    if (!m) continue;
    const depth = m[1].length / 4;
    let ms;
    let suite = false;
    const skipped = / # SKIP/.test(lines[i]);
    for (let j = i + 1; j < lines.length && !/^\s*\.\.\.$/.test(lines[j]); j++) {
      const d = /^\s*duration_ms: ([\d.]+)/.exec(lines[j]);
      if (d) ms = Number(d[1]);
      if (/^\s*type: 'suite'/.test(lines[j])) suite = true;
    }
    // A parent line comes after its children: name the children by the suite once it is known.
    const children = stack.filter((s) => s.depth > depth);
    for (const c of children) c.test.name = `${m[2]} › ${c.test.name}`;
    stack.splice(0, stack.length, ...stack.filter((s) => s.depth <= depth));
    if (suite || skipped || ms === undefined) continue;
    const test = { name: m[2], ms };
    out.push(test);
    stack.push({ depth, test });
  }
  return out;
}

const tests = [];
if (fs.existsSync(dir)) {
  for (const f of fs
    .readdirSync(dir)
    .filter((x) => x.endsWith('.tap'))
    .sort())
    for (const t of tapTests(path.join(dir, f))) tests.push({ phase: f.replace(/\.tap$/, ''), ...t });
  const editor = path.join(dir, 'editor');
  if (fs.existsSync(editor))
    for (const build of fs.readdirSync(editor).sort()) {
      const summary = path.join(editor, build, 'summary.json');
      if (!fs.existsSync(summary)) continue;
      const s = JSON.parse(fs.readFileSync(summary, 'utf8'));
      for (const r of s.results ?? [])
        if (typeof r.ms === 'number')
          tests.push({ phase: `editor ${s.vscode ?? build}`, name: `${r.phase} › ${r.name}`, ms: r.ms });
    }
}
tests.sort((a, b) => b.ms - a.ms);
const n = Number(nArg) || 10;
console.log(`\nThe ${Math.min(n, tests.length)} slowest of ${tests.length} timed tests:`);
for (const t of tests.slice(0, n))
  console.log(`${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.phase} › ${t.name}`);
const total = Number(totalArg);
if (Number.isFinite(total) && totalArg !== '')
  console.log(`Total time: ${Math.floor(total / 60)} min ${String(total % 60).padStart(2, '0')} s`);
