/**
 * Pure parts of sharing memory with agents: the rules gate for agent facts, the rule parser of
 * instruction files, the promoted section and the readable export.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { gateAgentFact } from '../../sidecar/agents/gate';
import { resolveProjects, rootFolders } from '../../sidecar/agents/projects';
import {
  PROMOTED_BEGIN,
  PROMOTED_END,
  promotedIds,
  promotionChoices,
  renderPromoted,
} from '../../sidecar/shared/promote';
import { renderReadable } from '../../sidecar/shared/readableExport';
import { parseRules } from '../../sidecar/agents/rulesImport';
import type { Memory } from '../../sidecar/model';
import { projectIdFor } from '../../sidecar/shared/project';

function mem(id: string, text: string, extra: Partial<Memory> = {}): Memory {
  return {
    id,
    text,
    category: 'instruction',
    source_type: 'manual',
    project_id: 'github.com/acme/repo',
    confidence_score: 0.9,
    is_actionable: false,
    source_ref: ['file:AGENTS.md#L3'],
    status: 'confirmed',
    created_at: '2026-11-01T10:00:00.000Z',
    updated_at: '2026-11-01T10:00:00.000Z',
    last_seen_at: '2026-11-01T10:00:00.000Z',
    times_seen: 1,
    added_by: 'alice@laptop',
    reason: 'explicit',
    score: 8,
    embedding_model: 'm',
    embedding_dim: 384,
    use_count: 0,
    ...extra,
  };
}

describe('agent facts: the rules gate', () => {
  test('facts pass, hedges/questions/small talk/venting are refused with the rule', () => {
    assert.equal(gateAgentFact('The PLC gateway listens on port 5020.').keep, true);
    assert.equal(gateAgentFact('We use pnpm, not npm, in this repo.').keep, true);
    for (const [t, rule] of [
      ['maybe we should try yarn?', 'drop:question'],
      ['thanks!', 'drop:small-talk'],
      ['ugh this is so annoying', 'drop:venting'],
    ] as const) {
      const g = gateAgentFact(t);
      assert.equal(g.keep, false, t);
      assert.ok(g.reason.startsWith(rule), `${t}: ${g.reason}`);
    }
  });
});

describe('MCP roots → projects', () => {
  test('file roots that are folders; no roots capability means the working folder; a pinned project wins', () => {
    assert.deepEqual(
      rootFolders([{ uri: 'file:///w/a' }, { uri: 'https://x' }, { uri: 'file:///w/b%20c' }]),
      ['/w/a', '/w/b c'],
    );
    assert.equal(resolveProjects({ cwd: '/tmp/x' }).from, 'cwd');
    assert.deepEqual(resolveProjects({ cwd: '/tmp/x', pinned: 'p' }).ids, ['p']);
    const base = mkdtempSync(join(tmpdir(), 'mnemo-roots-'));
    try {
      for (const d of ['one', 'two']) mkdirSync(join(base, d));
      const r = resolveProjects({
        cwd: '/tmp',
        roots: ['one', 'two', 'gone'].map((d) => ({ uri: pathToFileURL(join(base, d)).href })),
      });
      assert.equal(r.from, 'roots');
      assert.deepEqual(
        r.folders,
        [join(base, 'one'), join(base, 'two')],
        'a root that is no folder is left out',
      );
      assert.equal(r.ids.length, 2);
      assert.equal(r.primary, r.ids[0]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  test('an empty roots list, roots that name no folder and a pinned global are refused (issue 39, item 6)', () => {
    assert.throws(() => resolveProjects({ cwd: '/tmp', roots: [] }), /lists no workspace folder/);
    assert.throws(
      () => resolveProjects({ cwd: '/tmp', roots: [{ uri: 'file:///no/such/folder' }] }),
      /None of this client's MCP roots is an existing folder/,
    );
    for (const pinned of ['global', ' Global '])
      assert.throws(() => resolveProjects({ cwd: '/tmp', pinned }), /cannot work in the global project/);
  });

  test('a folder whose git remote is "global" maps to its own project, never global (issue 39, item 6)', () => {
    const base = mkdtempSync(join(tmpdir(), 'mnemo-remote-'));
    try {
      for (const url of ['global', 'GLOBAL.git', 'ssh://global/']) {
        mkdirSync(join(base, '.git'), { recursive: true });
        writeFileSync(join(base, '.git', 'config'), `[remote "origin"]\n\turl = ${url}\n`);
        const id = projectIdFor(base);
        assert.notEqual(id, 'global', url);
        assert.match(id, /^mnemo-remote-\w+-[0-9a-f]{6}$/, url);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('instruction files → rules', () => {
  test('list items and paragraphs with their first line; headings, code, front matter, comments, tables and Mnemo sections skipped', () => {
    const md = [
      '---',
      'description: x',
      '---',
      '# Title',
      '',
      '- Use **pnpm** for installs.',
      '  Never npm.',
      '1. Tests run with `make test`.',
      '- [x] Keep the changelog current.',
      '',
      '```',
      '- not a rule',
      '```',
      '<!-- a comment',
      'still comment -->',
      '| a | b |',
      '---',
      'A paragraph rule',
      'over two lines.',
      '<!-- mnemo:pointer:begin (managed) -->',
      '- call recall',
      '<!-- mnemo:pointer:end -->',
    ].join('\n');
    assert.deepEqual(parseRules(md), [
      { text: 'Use pnpm for installs. Never npm.', line: 6 },
      { text: 'Tests run with `make test`.', line: 8 },
      { text: 'Keep the changelog current.', line: 9 },
      { text: 'A paragraph rule over two lines.', line: 18 },
    ]);
  });
});

describe('promote to the repository', () => {
  test('a section Mnemo owns, grouped by category, updated in place, idempotent', () => {
    const doc = '# Repo\n\nHand-written notes.\n';
    const a = renderPromoted(doc, [
      mem('mem_00000000000000a1', 'Use pnpm.'),
      mem('mem_00000000000000b2', 'I prefer tabs.', {
        category: 'persona',
        created_at: '2026-11-02T00:00:00.000Z',
      }),
    ]);
    assert.ok(a.startsWith('# Repo\n\nHand-written notes.\n\n' + PROMOTED_BEGIN));
    assert.ok(a.trimEnd().endsWith(PROMOTED_END));
    assert.match(a, /### Rules and decisions\n\n- Use pnpm\. <!-- mem_00000000000000a1 -->/);
    assert.match(a, /### Preferences\n\n- I prefer tabs\. <!-- mem_00000000000000b2 -->/);
    assert.deepEqual(promotedIds(a), ['mem_00000000000000a1', 'mem_00000000000000b2']);
    assert.equal(
      renderPromoted(a, [
        mem('mem_00000000000000a1', 'Use pnpm.'),
        mem('mem_00000000000000b2', 'I prefer tabs.', {
          category: 'persona',
          created_at: '2026-11-02T00:00:00.000Z',
        }),
      ]),
      a,
    );
    const later = a + '\n## After\n';
    const b = renderPromoted(later, [mem('mem_00000000000000a1', 'Use pnpm.')]);
    assert.ok(b.endsWith('\n## After\n'), 'text after the section is kept');
    assert.deepEqual(promotedIds(b), ['mem_00000000000000a1']);
  });

  test("the file's own imported rules are not offered back to it, and say on which line they are", () => {
    const own = mem('mem_00000000000000c3', 'Use pnpm.', { source_ref: ['file:AGENTS.md#L5'] });
    const other = mem('mem_00000000000000d4', 'Run the smoke tests before a release.', {
      source_ref: ['file:CLAUDE.md#L2'],
    });
    const chat = mem('mem_00000000000000e5', 'Deploy with make release.', { source_ref: ['msg:m1'] });
    const agents = promotionChoices([own, other, chat], 'AGENTS.md');
    assert.deepEqual(
      agents.offer.map((m) => m.id),
      [other.id, chat.id],
    );
    assert.deepEqual(agents.already, [{ memory: own, line: 5 }]);
    assert.deepEqual(
      promotionChoices([own, other, chat], 'CLAUDE.md').already.map((a) => a.line),
      [2],
    );
  });
});

describe('readable export', () => {
  test('jsonl: one record per memory without embedding bookkeeping; markdown says it is not encrypted', () => {
    const ms = [
      mem('mem_00000000000000a1', 'Use pnpm.'),
      mem('mem_00000000000000c3', 'Global rule.', { project_id: 'global' }),
    ];
    const jsonl = renderReadable(ms, 'jsonl', { at: 'now', by: 'alice' })
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(jsonl.length, 2);
    assert.equal(jsonl[0]!.project_id, 'github.com/acme/repo');
    assert.equal('embedding_model' in jsonl[0]!, false);
    const md = renderReadable(ms, 'markdown', { at: 'now', by: 'alice' });
    assert.match(md, /not encrypted/);
    assert.match(md, /## global\n\n- Global rule\./);
    assert.equal(renderReadable([], 'jsonl', { at: 'now', by: 'a' }), '');
  });
});
