/**
 * Encrypted backup against a real Chroma server and the real all-MiniLM-L6-v2 model: round trip, 7-Zip
 * interoperability, refusal of wrong passwords, tampered, truncated and future-format files (nothing
 * changes), rollback of a failure or cancellation midway, new-project import, scheduled backups, the
 * password reader.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  exportBackup,
  importBackup,
  inspectBackup,
  isBackupDue,
  listBackups,
  readBackupPassword,
  runScheduledBackup,
  type BackupManifest,
  type ImportedAuditEntry,
} from '../../sidecar/backup/index';
import { sha256 } from '../../sidecar/backup/format';
import { readZipDirectory, readZipEntry } from '../../sidecar/backup/zipReader';
import { BackupError, CancelledError, MnemoError } from '../../sidecar/shared/errors';
import { memoryId, STATUSES, type Memory } from '../../sidecar/model';
import type { AuditEntry } from '../../sidecar/protocol';
import { MnemoService } from '../../sidecar/service';
import { cleanupDataDir, tempDataDir, inProcessService } from '../support/sidecarSession';

/** UTF-8, not only ASCII: 7-Zip reads such archives (it refuses to create them, hence {@link PACK_PASSWORD}). */
const PASSWORD = 'correct horse battery staple 电池';
const PACK_PASSWORD = 'repacked by 7-Zip';

function service(dataDir: string): MnemoService {
  // A tiny dedup distance: the seeded facts are deliberately similar and must all be stored.
  return inProcessService(dataDir, { pipeline: { dedupDistance: 0.0001 } });
}

function sevenZip(): string {
  for (const bin of ['7zz', '7z']) if (spawnSync(bin, ['i'], { stdio: 'ignore' }).status === 0) return bin;
  throw new Error('7-Zip (7zz or 7z) is not installed: apt-get install -y 7zip');
}

interface StoreSnapshot {
  memories: { memory: Memory; vector?: number[] }[];
  audit: string;
}

async function snapshot(svc: MnemoService): Promise<StoreSnapshot> {
  const memories = await svc.store.find(undefined, { withVectors: true });
  memories.sort((a, b) => a.memory.id.localeCompare(b.memory.id));
  return { memories, audit: existsSync(svc.audit.file) ? readFileSync(svc.audit.file, 'utf8') : '' };
}

async function byId(svc: MnemoService): Promise<Memory[]> {
  return (await svc.store.find(undefined)).map((r) => r.memory).sort((a, b) => a.id.localeCompare(b.id));
}

/** How many float32 steps (units in the last place) apart two numbers are, as float32. */
function float32Ulps(a: number, b: number): number {
  const bits = new Int32Array(new Float32Array([a, b]).buffer);
  // Map sign-magnitude onto a line so that -0 and +0 are neighbours and negatives count down.
  const line = (i: number) => (i < 0 ? -2147483648 - i : i);
  return Math.abs(line(bits[0]) - line(bits[1]));
}

/**
 * Two reads of the store hold the same memories and vectors. Vectors are float32 in Chroma, and a cosine
 * collection may hand back its re-normalized copy of a vector written again (measured here: 249 of 384
 * components one float32 step away, the norm 0.99999987 instead of 0.99999982), so vectors are compared at
 * float32 precision: at most 2 steps per component. Every other field, and the audit log, must be equal.
 */
function assertSameStore(actual: StoreSnapshot, expected: StoreSnapshot, message: string): void {
  const strip = (s: StoreSnapshot) => ({ ...s, memories: s.memories.map((r) => r.memory) });
  assert.deepEqual(strip(actual), strip(expected), message);
  expected.memories.forEach((x, i) => {
    const y = actual.memories[i].vector!;
    assert.equal(y.length, x.vector!.length, `${message}: vector length of ${x.memory.id}`);
    const worst = Math.max(...x.vector!.map((v, k) => float32Ulps(v, y[k])));
    assert.ok(worst <= 2, `${message}: the vector of ${x.memory.id} is ${worst} float32 steps away`);
  });
}

/** One sentence: ends with a period and has no sentence break inside. */
function assertOneSentence(message: string): void {
  assert.match(message, /[.]$/, `"${message}" should end with a period`);
  assert.doesNotMatch(message.slice(0, -1), /[.!?]\s+[A-Z]/, `"${message}" should be one sentence`);
  assert.doesNotMatch(message, /\n/, 'no line breaks');
}

/** Re-packs files into an AES-256 ZIP with 7-Zip (as someone holding the password could). */
function sevenZipPack(
  dir: string,
  files: Record<string, Buffer | string>,
  out: string,
  password = PACK_PASSWORD,
): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
  execFileSync(sevenZip(), ['a', '-tzip', '-mem=AES256', `-p${password}`, out, ...Object.keys(files)], {
    cwd: dir,
    stdio: 'ignore',
  });
  return out;
}

function sevenZipExtract(file: string, dir: string, password = PASSWORD): Record<string, Buffer> {
  execFileSync(sevenZip(), ['x', '-y', `-p${password}`, `-o${dir}`, file], { stdio: 'ignore' });
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n))]));
}

const SEED_EN = [
  'Deploy the gateway with helm upgrade --install gw ./chart -n edge',
  'The PLC firmware update window is Sunday 02:00 UTC',
  'Use pnpm, not npm, in the frontend monorepo',
  'The staging database is postgres 16 on port 5433',
  'Grafana dashboards live in the ops/dashboards folder',
  'Run make lint before pushing to main',
  'The Modbus timeout must stay at 1500 ms for line 3',
  'Kafka topic orders-v2 keeps events for 14 days',
  'I prefer tabs over spaces in Go files',
  'The CI runner image is ubuntu 24.04 with node 20',
];
const SEED_ZH = [
  '部署网关前必须先备份配置文件',
  '生产环境的 Redis 端口是 6380',
  '我习惯用 vim 编辑配置',
  '三号产线的扫码枪超时设置为 3 秒',
  '发布流程：先灰度百分之十，再全量',
];

describe('encrypted backup', () => {
  const dirs: string[] = [];
  const services: MnemoService[] = [];
  let source: MnemoService;
  let work: string;
  let backupFile: string;
  let sourceAuditAtExport: AuditEntry[];
  let exportMs = 0;

  function fresh(): MnemoService {
    const dir = tempDataDir('mnemo-backup-');
    dirs.push(dir);
    const svc = service(dir);
    services.push(svc);
    return svc;
  }

  before(async () => {
    work = tempDataDir('mnemo-backup-files-');
    dirs.push(work);
    source = fresh();
    await source.start();
    const ids: string[] = [];
    // ~100 memories in two projects plus global, English and Chinese, every status.
    for (let i = 0; i < 85; i++) {
      const base = SEED_EN[i % SEED_EN.length];
      const d = await source.remember({
        text: `${base} (note ${i + 1}, host h${(i * 37) % 101})`,
        project_id: i % 3 === 0 ? 'github.com/acme/plc-gateway' : 'web-shop',
        pending: i % 4 === 0,
      });
      assert.ok(
        d.id && d.outcome !== 'dropped' && d.outcome !== 'refreshed',
        `seed ${i}: ${d.outcome} ${d.reason}`,
      );
      ids.push(d.id);
    }
    for (const [i, text] of SEED_ZH.entries()) {
      const d = await source.remember({
        text,
        project_id: 'github.com/acme/plc-gateway',
        category: i === 2 ? 'persona' : 'instruction',
      });
      assert.ok(d.id && d.outcome === 'stored', `zh seed ${i}: ${d.outcome}`);
      ids.push(d.id);
    }
    for (let i = 0; i < 10; i++) {
      const d = await source.remember({
        text: `Always sign commits with the team GPG key, rule ${i + 1}`,
        project_id: 'global',
      });
      ids.push(d.id!);
    }
    await source.confirm({ id: ids[0], by: 'reviewer@ci' }); // pending -> confirmed
    await source.markWrong({ id: ids[1], by: 'reviewer@ci' });
    await source.markWrong({ id: ids[86] });
    await source.update({ id: ids[2], patch: { status: 'active', confidence_score: 0.75 } });
    await source.update({ id: ids[3], patch: { status: 'archived' } });
    await source.update({ id: ids[4], patch: { status: 'superseded' } }); // a newer fact replaced it
    await source.update({ id: ids[5], patch: { text: 'Use pnpm 9, not npm, in the frontend monorepo' } });
    await source.promote({ id: ids[7] });
    const all = await byId(source);
    assert.equal(all.length, 100);
    for (const s of STATUSES)
      assert.ok(
        all.some((m) => m.status === s),
        `seeded status ${s}`,
      );

    sourceAuditAtExport = source.audit.readAll();
    const t0 = performance.now();
    const r = await exportBackup(source, { out: work, password: PASSWORD });
    exportMs = performance.now() - t0;
    backupFile = r.file;
  });

  after(async () => {
    for (const s of services) await s.dispose().catch(() => undefined);
    dirs.forEach(cleanupDataDir);
  });

  test('export: default name, mode 0600, manifest with counts, model and hashes, audited', async (t) => {
    assert.match(backupFile, /mnemo-backup-all-\d{8}T\d{6}Z\.zip$/);
    assert.equal(statSync(backupFile).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(work).filter((n) => n.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
    const preview = await inspectBackup(backupFile, PASSWORD);
    assert.equal(preview.format_version, 1);
    assert.equal(preview.counts.memories, 100);
    assert.equal(preview.counts.vectors, 100);
    assert.equal(preview.counts.audit_entries, sourceAuditAtExport.length);
    assert.deepEqual(preview.projects, ['github.com/acme/plc-gateway', 'global', 'web-shop']);
    assert.equal(preview.embedding.model, source.store.active!.model);
    assert.equal(preview.embedding.dim, 384);
    assert.match(preview.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const exported = source.audit.readAll().at(-1)!;
    assert.equal(exported.action, 'export');
    assert.match(exported.note!, /exported 100 memories/);
    t.diagnostic(
      `export of 100 memories with vectors: ${exportMs.toFixed(0)} ms, ${statSync(backupFile).size} bytes`,
    );

    // A project export holds only that project's memories and entries.
    const p = await exportBackup(source, {
      out: join(work, 'projects') + '/',
      password: PASSWORD,
      projectId: 'github.com/acme/plc-gateway',
      includeVectors: false,
    });
    assert.match(p.file, /mnemo-backup-github\.com_acme_plc-gateway-\d{8}T\d{6}Z\.zip$/);
    const pp = await inspectBackup(p.file, PASSWORD);
    assert.deepEqual(pp.projects, ['github.com/acme/plc-gateway']);
    assert.equal(pp.vectors_included, false);
    assert.equal(
      pp.counts.memories,
      (await byId(source)).filter((m) => m.project_id === 'github.com/acme/plc-gateway').length,
    );
  });

  test('round trip: export, import into a fresh store, everything comes back identical', async (t) => {
    const target = fresh();
    await target.start();
    await target.requireModel(); // time the import itself, not the model load
    const before = await inspectBackup(backupFile, PASSWORD, target);
    assert.equal(before.conflicts.length, 0);
    assert.equal(before.needs_reembed, false);
    const t0 = performance.now();
    const r = await importBackup(target, backupFile, PASSWORD, {
      mode: 'skip',
      consent: true,
      keepConfirmations: true,
    });
    const ms = performance.now() - t0;
    t.diagnostic(`import of 100 memories with vectors: ${ms.toFixed(0)} ms`);
    assert.equal(r.inserted, 100);
    assert.equal(r.reembedded, 0, 'same model: the vectors are reused');
    assert.deepEqual(await byId(target), await byId(source), 'every field of every memory');
    // Identical float32 values go in (the store's own audit logs differ: only the memories are compared).
    assertSameStore(
      { ...(await snapshot(target)), audit: '' },
      { ...(await snapshot(source)), audit: '' },
      'the restored memories',
    );
    const entries = target.audit.readAll() as ImportedAuditEntry[];
    const restored = entries.filter((e) => e.imported_from).map(({ imported_from: _f, ...rest }) => rest);
    assert.deepEqual(restored, sourceAuditAtExport, 'the audit trail, marked imported');
    assert.ok(entries.every((e) => e.action === 'import' || e.imported_from === backupFile.split('/').pop()));
    assert.equal(entries.filter((e) => e.action === 'import').length, 100);
    // Importing the same backup again changes nothing: all ids exist and the audit is not duplicated.
    const again = await importBackup(target, backupFile, PASSWORD, {
      mode: 'overwrite',
      consent: true,
      keepConfirmations: true,
    });
    assert.equal(again.inserted + again.overwritten, 0);
    assert.equal(again.skipped, 100);
    assert.equal(target.audit.readAll().length, entries.length);
    // Recall works on the restored store.
    const rec = await target.recall({
      query: '三号产线扫码枪的超时是多少',
      project_ids: ['github.com/acme/plc-gateway'],
      mark_used: false,
    });
    assert.ok(
      rec.items.some((i) => i.memory.text.includes('扫码枪')),
      rec.items.map((i) => i.memory.text).join(' | '),
    );
  });

  // Issue 39, item 14: a dry-run promised a re-embed the import then did not do (a store whose model was not
  // loaded yet, records the import skips). The preview decides as the import does.
  test('the preview promises a re-embed only when the import does one', async () => {
    const target = fresh();
    await target.start(); // the model is not loaded: the store has no collection yet
    const preview = await inspectBackup(backupFile, PASSWORD, target, { consent: true });
    assert.equal(preview.needs_reembed, false, 'same model, vectors included');
    const r = await importBackup(target, backupFile, PASSWORD, { mode: 'skip', consent: true });
    assert.equal(r.inserted, 100);
    assert.equal(r.reembedded, 0);
    const noVec = await exportBackup(source, {
      out: join(work, 'novec-preview.zip'),
      password: PASSWORD,
      includeVectors: false,
    });
    const all = fresh();
    await all.start();
    assert.equal((await inspectBackup(noVec.file, PASSWORD, all, { consent: true })).needs_reembed, true);
    // Into a store that holds every memory already, skip writes none and embeds none.
    assert.equal(
      (await inspectBackup(noVec.file, PASSWORD, target, { mode: 'skip', consent: true })).needs_reembed,
      false,
    );
    const again = await importBackup(target, noVec.file, PASSWORD, { mode: 'skip', consent: true });
    assert.equal(again.inserted, 0);
    assert.equal(again.reembedded, 0);
  });

  test('without vectors (or another model) the texts are re-embedded with the store model', async (t) => {
    const target = fresh();
    await target.start();
    const noVec = await exportBackup(source, {
      out: join(work, 'novec.zip'),
      password: PASSWORD,
      includeVectors: false,
    });
    t.diagnostic(`backup without vectors: ${noVec.bytes} bytes (with: ${statSync(backupFile).size})`);
    await target.requireModel();
    const t0 = performance.now();
    const r = await importBackup(target, noVec.file, PASSWORD, {
      mode: 'skip',
      consent: true,
      keepConfirmations: true,
    });
    t.diagnostic(`import of 100 memories re-embedding: ${(performance.now() - t0).toFixed(0)} ms`);
    assert.equal(r.reembedded, 100);
    assert.deepEqual(await byId(target), await byId(source));
    const a = await snapshot(source);
    const b = await snapshot(target);
    for (let i = 0; i < a.memories.length; i++) {
      const x = a.memories[i].vector!;
      const y = b.memories[i].vector!;
      assert.equal(y.length, 384);
      // The same model gives the same vector, up to the q8 model's per-batch activation scale: a restore
      // embeds in other batches than the capture did (test/unit/embedLocal.test.ts, MAX_BATCH_DRIFT).
      const cos = x.reduce((s, v, k) => s + v * y[k], 0);
      assert.ok(cos > 0.97, `the same model gives the same vector (cosine ${cos})`);
    }

    // A backup made with another (8-dimensional) model: its vectors are not used.
    const files = sevenZipExtract(backupFile, join(work, 'othermodel'));
    const eight = Buffer.from(new Float32Array(8).fill(0.25).buffer).toString('base64');
    const mems = files['memories.jsonl']
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(0, 5)
      .map((l) => ({
        ...(JSON.parse(l) as Memory),
        embedding_model: 'other:tiny',
        embedding_dim: 8,
        vector: eight,
      }));
    const memText = mems.map((m) => JSON.stringify(m) + '\n').join('');
    const manifest = JSON.parse(files['manifest.json'].toString('utf8')) as BackupManifest;
    manifest.embedding = { model: 'other:tiny', dim: 8 };
    manifest.counts.memories = 5;
    manifest.counts.audit_entries = 0;
    manifest.files['memories.jsonl'] = { sha256: sha256(memText), bytes: Buffer.byteLength(memText) };
    manifest.files['audit.jsonl'] = { sha256: sha256(''), bytes: 0 };
    const other = sevenZipPack(
      join(work, 'othermodel-src'),
      { 'memories.jsonl': memText, 'audit.jsonl': '', 'manifest.json': JSON.stringify(manifest) },
      join(work, 'othermodel.zip'),
    );
    const preview = await inspectBackup(other, PACK_PASSWORD, target);
    assert.equal(
      preview.needs_reembed,
      false,
      'skip (the default) keeps the 5 stored ones: nothing to embed',
    );
    assert.equal(preview.conflicts.length, 5, 'the 5 ids exist already');
    assert.ok(preview.conflicts.every((c) => c.differs && c.fields.includes('embedding_model')));
    const asNew = { mode: 'new-project' as const, newProjectId: 'from-tiny' };
    assert.equal((await inspectBackup(other, PACK_PASSWORD, target, asNew)).needs_reembed, true);
    const o = await importBackup(target, other, PACK_PASSWORD, {
      mode: 'new-project',
      newProjectId: 'from-tiny',
      keepConfirmations: true,
    });
    assert.equal(o.reembedded, 5);
    const moved = (await target.store.find(undefined, { withVectors: true })).filter(
      (x) => x.memory.project_id === 'from-tiny',
    );
    assert.equal(moved.length, 5);
    for (const m of moved) {
      assert.equal(m.vector!.length, 384);
      assert.equal(m.memory.embedding_model, target.store.active!.model);
      assert.equal(m.memory.embedding_dim, 384);
    }
  });

  test('7-Zip lists the entries as AES-256, extracts them with the password and refuses a wrong one', () => {
    const bin = sevenZip();
    const list = execFileSync(bin, ['l', '-slt', `-p${PASSWORD}`, backupFile]).toString();
    const methods = [...list.matchAll(/^Method = (.+)$/gm)].map((m) => m[1].trim());
    assert.deepEqual(methods, ['AES-256 Deflate', 'AES-256 Deflate', 'AES-256 Deflate'], list);
    assert.match(list, /Encrypted = \+/);
    const files = sevenZipExtract(backupFile, join(work, 'extracted'));
    assert.deepEqual(Object.keys(files).sort(), ['audit.jsonl', 'manifest.json', 'memories.jsonl']);
    const manifest = JSON.parse(files['manifest.json'].toString('utf8')) as BackupManifest;
    assert.equal(sha256(files['memories.jsonl']), manifest.files['memories.jsonl'].sha256);
    assert.equal(sha256(files['audit.jsonl']), manifest.files['audit.jsonl'].sha256);
    assert.equal(files['memories.jsonl'].toString('utf8').trim().split('\n').length, 100);
    assert.ok(files['memories.jsonl'].toString('utf8').includes('生产环境的 Redis 端口是 6380'));
    const wrong = spawnSync(bin, ['t', '-pnot-the-password', backupFile], { encoding: 'utf8' });
    assert.notEqual(wrong.status, 0, 'a wrong password is refused');
    assert.match(wrong.stdout + wrong.stderr, /Wrong password/i);
  });

  test('a backup re-packed by 7-Zip with the password reads back (interoperable reader)', async () => {
    const files = sevenZipExtract(backupFile, join(work, 'repack'));
    const repacked = sevenZipPack(join(work, 'repack'), files, join(work, 'repacked-by-7zip.zip'));
    const preview = await inspectBackup(repacked, PACK_PASSWORD);
    assert.equal(preview.counts.memories, 100);
    // 7-Zip writes AE-2 (no CRC, HMAC only) for small entries; archiver-zip-encrypted writes AE-1.
    const small = sevenZipPack(join(work, 'ae2'), { 'note.txt': 'tiny 小' }, join(work, 'ae2.zip'));
    const buf = readFileSync(small);
    const [entry] = readZipDirectory(buf);
    assert.deepEqual(entry.aes, { version: 2, strength: 3, method: 0 });
    assert.equal(readZipEntry(buf, entry, PACK_PASSWORD).toString('utf8'), 'tiny 小');
    assert.ok(
      readZipDirectory(readFileSync(backupFile)).every(
        (e) => e.aes?.version === 1 && e.aes.strength === 3 && e.aes.method === 8,
      ),
    );
  });

  test('wrong password, tampered manifest or data, truncated file, future format: one sentence, nothing changes', async () => {
    const target = fresh();
    await target.start();
    await target.remember({ text: 'The target store already knows this fact', project_id: 'web-shop' });
    const before = await snapshot(target);
    const files = sevenZipExtract(backupFile, join(work, 'tamper'));

    const manifest = JSON.parse(files['manifest.json'].toString('utf8')) as BackupManifest;
    const badHash = {
      ...manifest,
      files: {
        ...manifest.files,
        'memories.jsonl': { ...manifest.files['memories.jsonl'], sha256: 'f'.repeat(64) },
      },
    };
    const tamperedManifest = sevenZipPack(
      join(work, 'tamper-manifest'),
      { ...files, 'manifest.json': JSON.stringify(badHash) },
      join(work, 'tampered-manifest.zip'),
    );
    const edited = files['memories.jsonl'].toString('utf8').replace('6380', '6381');
    const tamperedData = sevenZipPack(
      join(work, 'tamper-data'),
      { ...files, 'memories.jsonl': edited },
      join(work, 'tampered-data.zip'),
    );
    const future = sevenZipPack(
      join(work, 'future'),
      { ...files, 'manifest.json': JSON.stringify({ ...manifest, format_version: 2 }) },
      join(work, 'future.zip'),
    );
    const raw = readFileSync(backupFile);
    const flipped = Buffer.from(raw);
    flipped[Math.floor(raw.length / 3)] ^= 0x40;
    writeFileSync(join(work, 'flipped.zip'), flipped);
    writeFileSync(join(work, 'truncated.zip'), raw.subarray(0, Math.floor(raw.length * 0.7)));
    writeFileSync(join(work, 'not-a-zip.zip'), 'hello');

    const cases: [string, string, string, RegExp][] = [
      ['wrong password', backupFile, 'not the password', /password is wrong/],
      [
        'tampered manifest',
        tamperedManifest,
        PACK_PASSWORD,
        /modified: memories\.jsonl does not match the SHA-256 in its manifest/,
      ],
      ['tampered data', tamperedData, PACK_PASSWORD, /modified: memories\.jsonl does not match/],
      [
        'flipped byte',
        join(work, 'flipped.zip'),
        PASSWORD,
        /modified or damaged|damaged or has been modified/,
      ],
      ['truncated', join(work, 'truncated.zip'), PASSWORD, /incomplete \(the file was cut short\)/],
      ['future format', future, PACK_PASSWORD, /format version 2, which this version of Mnemo cannot read/],
      ['not a zip', join(work, 'not-a-zip.zip'), PASSWORD, /not a Mnemo backup/],
      ['missing file', join(work, 'nope.zip'), PASSWORD, /no backup file/],
    ];
    const reasons: Record<string, string> = {};
    for (const [what, file, pw, message] of cases) {
      for (const op of [
        () => inspectBackup(file, pw, target),
        () => importBackup(target, file, pw, { mode: 'overwrite' }),
      ]) {
        await assert.rejects(op(), (e: unknown) => {
          assert.ok(e instanceof BackupError, `${what}: ${String(e)}`);
          assert.match(e.message, message, what);
          assertOneSentence(e.message);
          reasons[what] = e.reason;
          return true;
        });
      }
    }
    assert.deepEqual(reasons, {
      'wrong password': 'wrong-password',
      'tampered manifest': 'tampered',
      'tampered data': 'tampered',
      'flipped byte': 'tampered',
      truncated: 'truncated',
      'future format': 'unsupported-version',
      'not a zip': 'not-a-backup',
      'missing file': 'not-found',
    });
    assert.deepEqual(await snapshot(target), before, 'nothing changed');
  });

  test('a failure midway is rolled back: inserted memories removed, overwritten ones restored with their vectors', async () => {
    const target = fresh();
    await target.start();
    // The target already holds 30 of the backup's memories, 10 of them edited.
    const half = await exportBackup(source, {
      out: join(work, 'web-shop.zip'),
      password: PASSWORD,
      projectId: 'web-shop',
    });
    await importBackup(target, half.file, PASSWORD, {
      mode: 'skip',
      projectIds: ['web-shop'],
      keepConfirmations: true,
    });
    const webShop = (await byId(target)).slice(0, 10);
    for (const m of webShop)
      await target.update({ id: m.id, patch: { confidence_score: 0.42, is_actionable: !m.is_actionable } });
    await target.update({ id: webShop[0]!.id, patch: { text: 'The target store says this instead.' } });
    await target.remember({ text: 'Only the target store knows this', project_id: 'web-shop' });
    const before = await snapshot(target);

    const preview = await inspectBackup(backupFile, PASSWORD, target, { keepConfirmations: true });
    assert.equal(preview.conflicts.filter((c) => c.differs).length, 10);
    assert.ok(preview.conflicts.find((c) => c.differs)!.fields.includes('confidence_score'));
    // The overwrite confirmation can say what the memory becomes: the stored text and the backup's.
    const edited = preview.conflicts.find((c) => c.id === webShop[0]!.id)!;
    assert.ok(edited.fields.includes('text'), edited.fields.join(', '));
    assert.equal(edited.text, 'The target store says this instead.');
    assert.equal(edited.backup_text, webShop[0]!.text);

    // Upsert throws on the batch holding a chosen record, after earlier batches (with overwrites) were written.
    const realUpsert = target.store.upsert.bind(target.store);
    const poison = (await byId(source))
      .filter((m) => m.project_id === 'global')
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .at(-1)!.id;
    let calls = 0;
    let failed = false;
    const writtenBack = new Map<string, number[]>();
    target.store.upsert = async (records, into) => {
      calls++;
      if (failed) for (const r of records) writtenBack.set(r.memory.id, r.vector);
      if (records.some((r) => r.memory.id === poison)) {
        failed = true;
        throw new MnemoError('Chroma refused the write (injected failure).');
      }
      return realUpsert(records, into);
    };
    try {
      await assert.rejects(
        importBackup(target, backupFile, PASSWORD, {
          mode: 'overwrite',
          batchSize: 7,
          consent: true,
          keepConfirmations: true,
        }),
        (e: unknown) => {
          assert.ok(e instanceof BackupError, String(e));
          assert.equal(e.reason, 'rolled-back');
          assert.match(e.message, /failed and was undone, so nothing was changed: Chroma refused the write/);
          return true;
        },
      );
      assert.ok(calls > 3, `several batches were written before the failure (${calls} upserts)`);
      // The rollback writes back the very float32 values it read, never a re-embedded vector ...
      assert.equal(writtenBack.size, 10, 'the ten overwritten memories are written back');
      for (const [id, vector] of writtenBack) {
        const was = before.memories.find((r) => r.memory.id === id)!.vector!;
        assert.deepEqual(new Float32Array(vector), new Float32Array(was), `the stored vector of ${id}`);
      }
      // ... and reading the store again shows what was there, at the precision Chroma keeps.
      assertSameStore(await snapshot(target), before, 'the store and audit log are as they were');

      // Cancelling midway is rolled back the same way.
      target.store.upsert = realUpsert;
      const token = { isCancellationRequested: false };
      let writes = 0;
      await assert.rejects(
        importBackup(target, backupFile, PASSWORD, {
          mode: 'overwrite',
          consent: true,
          batchSize: 5,
          token,
          onProgress: (p) => {
            if (p.message.startsWith('Writing') && ++writes === 4) token.isCancellationRequested = true;
          },
        }),
        (e: unknown) => e instanceof CancelledError && /nothing was changed/.test(e.message),
      );
      assertSameStore(await snapshot(target), before, 'cancelled: as it was');
    } finally {
      target.store.upsert = realUpsert;
    }

    // And the same import without a failure overwrites the edited ones.
    const ok = await importBackup(target, backupFile, PASSWORD, {
      mode: 'overwrite',
      consent: true,
      keepConfirmations: true,
    });
    assert.equal(ok.overwritten, 10);
    assert.equal(ok.inserted, 100 - (await exportedCount(half.file)));
    const restored = await byId(target);
    for (const m of webShop) {
      const now = restored.find((x) => x.id === m.id)!;
      assert.equal(now.confidence_score, m.confidence_score, 'backup values back');
    }
    const importEntries = target.audit
      .readAll()
      .filter((e) => e.action === 'import' && e.changes?.confidence_score);
    assert.equal(importEntries.length, 10, 'overwrites audited with before/after');
  });

  test('skip keeps the stored version; new-project recomputes ids for the new project', async () => {
    const target = fresh();
    await target.start();
    const proj = await exportBackup(source, {
      out: join(work, 'plc.zip'),
      password: PASSWORD,
      projectId: 'github.com/acme/plc-gateway',
    });
    const srcMems = (await byId(source)).filter((m) => m.project_id === 'github.com/acme/plc-gateway');
    const plc = ['github.com/acme/plc-gateway'];
    await importBackup(target, proj.file, PASSWORD, {
      mode: 'skip',
      projectIds: plc,
      keepConfirmations: true,
    });
    const edited = srcMems[0];
    await target.update({ id: edited.id, patch: { confidence_score: 0.33 } });
    const skip = await importBackup(target, proj.file, PASSWORD, {
      mode: 'skip',
      projectIds: plc,
      keepConfirmations: true,
    });
    assert.equal(skip.inserted, 0);
    assert.equal(skip.skipped, srcMems.length);
    assert.equal((await target.get(edited.id)).confidence_score, 0.33, 'skip keeps the stored one');

    const copy = await importBackup(target, proj.file, PASSWORD, {
      mode: 'new-project',
      newProjectId: 'plc-gateway-copy',
      keepConfirmations: true,
    });
    assert.equal(copy.inserted, srcMems.length);
    const copied = (await byId(target)).filter((m) => m.project_id === 'plc-gateway-copy');
    assert.equal(copied.length, srcMems.length);
    for (const m of srcMems) {
      const c = copied.find((x) => x.id === memoryId('plc-gateway-copy', m.text));
      assert.ok(c, `copy of ${m.id}`);
      assert.deepEqual({ ...c, id: m.id, project_id: m.project_id }, m, 'same fields but id and project');
    }
    const hist = target.audit.query({
      memory_id: memoryId('plc-gateway-copy', srcMems[0].text),
    }) as ImportedAuditEntry[];
    assert.ok(
      hist.some((e) => e.action === 'create' && e.imported_from && e.project_id === 'plc-gateway-copy'),
      'history follows the new id',
    );
    assert.ok(hist.some((e) => e.action === 'import' && e.note!.includes(`was ${srcMems[0].id}`)));
    await assert.rejects(
      importBackup(target, proj.file, PASSWORD, { mode: 'new-project', newProjectId: 'plc-gateway-copy' }),
      (e: unknown) => {
        assert.ok(e instanceof BackupError && e.reason === 'conflict');
        assertOneSentence(e.message);
        return true;
      },
    );
  });

  test('export is cancellable and leaves no file; a short password is refused', async () => {
    const token = { isCancellationRequested: false };
    const out = join(work, 'cancelled');
    mkdirSync(out);
    await assert.rejects(
      exportBackup(source, {
        out,
        password: PASSWORD,
        token,
        onProgress: (p) => {
          if (p.message.startsWith('Encrypting')) token.isCancellationRequested = true;
        },
      }),
      (e: unknown) => e instanceof CancelledError,
    );
    assert.deepEqual(readdirSync(out), []);
    await assert.rejects(exportBackup(source, { out, password: 'short' }), /at least 8 characters/);
  });

  test('scheduled backups: due daily/weekly with an injected clock, pruned to the last N', async () => {
    const t0 = new Date('2026-11-30T06:15:00Z');
    const h = (n: number) => new Date(t0.getTime() + n * 3600_000);
    assert.equal(isBackupDue('daily', undefined, t0), true);
    assert.equal(isBackupDue('daily', t0, h(1)), false);
    assert.equal(isBackupDue('daily', t0, h(23)), true, 'an hour of slack: hourly checks do not drift');
    assert.equal(isBackupDue('weekly', t0, h(24 * 6)), false);
    assert.equal(isBackupDue('weekly', t0, h(24 * 7)), true);
    assert.equal(isBackupDue('daily', h(5), t0), true, 'a last run in the future is not trusted');

    const folder = join(work, 'scheduled');
    let now = t0;
    const settings = {
      folder,
      every: 'daily' as const,
      keep: 2,
      password: PASSWORD,
      projectId: 'web-shop',
      includeVectors: false,
    };
    const first = await runScheduledBackup(source, settings, () => now);
    assert.equal(first.ran, true);
    assert.match(first.result!.file, /mnemo-backup-web-shop-20261130T061500Z\.zip$/);
    now = h(2);
    assert.equal((await runScheduledBackup(source, settings, () => now)).ran, false);
    for (const n of [24, 48, 72]) {
      now = h(n);
      const r = await runScheduledBackup(source, settings, () => now);
      assert.equal(r.ran, true);
    }
    const kept = listBackups(folder, 'web-shop').map((b) => b.file.split('/').pop());
    assert.deepEqual(kept, [
      'mnemo-backup-web-shop-20261202T061500Z.zip',
      'mnemo-backup-web-shop-20261203T061500Z.zip',
    ]);
    assert.equal((await inspectBackup(join(folder, kept[1]!), PASSWORD)).project_id, 'web-shop');
  });

  test('password: --password-stdin, MNEMO_BACKUP_PASSWORD, a no-echo prompt, nothing usable', async () => {
    const stdin = new PassThrough();
    stdin.end('from stdin 密码\n');
    assert.equal(
      await readBackupPassword({ fromStdin: true, env: {}, io: { stdin, prompt: new PassThrough() } }),
      'from stdin 密码',
    );
    assert.equal(
      await readBackupPassword({
        env: { MNEMO_BACKUP_PASSWORD: 'from env' },
        io: { stdin: new PassThrough(), prompt: new PassThrough() },
      }),
      'from env',
    );

    const tty = Object.assign(new PassThrough(), {
      isTTY: true,
      raw: false,
      setRawMode(v: boolean) {
        tty.raw = v;
        return tty;
      },
    });
    const prompt = new PassThrough();
    const shown: string[] = [];
    prompt.on('data', (d: Buffer) => shown.push(d.toString()));
    const typed = readBackupPassword({ env: {}, confirm: true, io: { stdin: tty, prompt } });
    setImmediate(() => {
      assert.equal(tty.raw, true, 'raw mode while typing');
      tty.write('s3cretX\u007f!\r');
      setImmediate(() => tty.write('s3cret!\r'));
    });
    assert.equal(await typed, 's3cret!');
    assert.equal(tty.raw, false, 'raw mode restored');
    assert.ok(!shown.join('').includes('s3cret'), 'the password is not echoed');

    await assert.rejects(
      readBackupPassword({ env: {}, io: { stdin: new PassThrough(), prompt: new PassThrough() } }),
      /--password-stdin, or set MNEMO_BACKUP_PASSWORD/,
    );
  });
});

async function exportedCount(file: string): Promise<number> {
  return (await inspectBackup(file, PASSWORD)).counts.memories;
}
