/**
 * Crafting backups as someone holding the password could: any memories, episodes, audit entries and
 * manifest claims, encrypted with WinZip AES-256 by archiver-zip-encrypted (the writer Mnemo itself uses),
 * with entries given as bytes or as a stream (for files of hundreds of MB that are never held in memory).
 */
import archiver from 'archiver';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { BackupManifest } from '../../sidecar/backup/index';
import { STATUSES, memoryId, type Memory } from '../../sidecar/model';

export interface CraftedEntry {
  name: string;
  data: Buffer | string | (() => Readable);
}

/** Writes an AES-256 encrypted ZIP of `entries` (zlib level 1 is fast for large streams; 9 packs a bomb smallest). */
export async function writeAesZip(
  file: string,
  password: string,
  entries: CraftedEntry[],
  level = 1,
): Promise<void> {
  if (!archiver.isRegisteredFormat('zip-encrypted'))
    archiver.registerFormat(
      'zip-encrypted',
      require('archiver-zip-encrypted') as (...args: unknown[]) => unknown,
    );
  const archive = archiver.create('zip-encrypted', {
    zlib: { level },
    encryptionMethod: 'aes256',
    password,
  } as archiver.ArchiverOptions);
  const out = createWriteStream(file, { mode: 0o600 });
  const done = new Promise<void>((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
    archive.on('error', reject);
  });
  archive.pipe(out);
  for (const e of entries)
    archive.append(typeof e.data === 'function' ? e.data() : e.data, { name: e.name, date: new Date(0) });
  await archive.finalize();
  await done;
}

/** A memory with every field, as export writes it. */
export function craftedMemory(project: string, text: string, over: Partial<Memory> = {}): Memory {
  const at = '2026-11-01T08:00:00.000Z';
  return {
    id: memoryId(project, text),
    text,
    category: 'instruction',
    source_type: 'manual',
    project_id: project,
    confidence_score: 0.9,
    is_actionable: true,
    source_ref: [],
    status: 'active',
    created_at: at,
    updated_at: at,
    last_seen_at: at,
    times_seen: 1,
    added_by: 'someone@somewhere',
    reason: 'explicit: remembered on request',
    score: 8,
    embedding_model: 'none',
    embedding_dim: 0,
    use_count: 0,
    ...over,
  };
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

/** A valid backup (correct hashes and counts) of these records, with whatever the manifest claims on top. */
export async function craftBackup(
  file: string,
  password: string,
  parts: { memories: object[]; episodes?: object[]; audit?: object[] },
  claims: Partial<BackupManifest> = {},
): Promise<string> {
  const jsonl = (xs: object[]): string => xs.map((x) => JSON.stringify(x) + '\n').join('');
  const mem = jsonl(parts.memories);
  const aud = jsonl(parts.audit ?? []);
  const ep = parts.episodes ? jsonl(parts.episodes) : undefined;
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as BackupManifest['counts']['by_status'];
  const manifest: BackupManifest = {
    format: 'mnemo-backup',
    format_version: 1,
    created_at: '2026-11-02T08:00:00.000Z',
    created_by: 'someone@somewhere',
    project_id: null,
    projects: [],
    counts: {
      memories: parts.memories.length,
      audit_entries: (parts.audit ?? []).length,
      vectors: 0,
      by_status: byStatus,
      ...(ep !== undefined ? { episodes: parts.episodes!.length } : {}),
    },
    embedding: { model: null, dim: null },
    vectors: { included: false, encoding: 'float32le-base64' },
    files: {
      'memories.jsonl': { sha256: sha(mem), bytes: Buffer.byteLength(mem) },
      'audit.jsonl': { sha256: sha(aud), bytes: Buffer.byteLength(aud) },
      ...(ep !== undefined ? { 'episodes.jsonl': { sha256: sha(ep), bytes: Buffer.byteLength(ep) } } : {}),
    },
    ...claims,
  };
  await writeAesZip(file, password, [
    { name: 'memories.jsonl', data: mem },
    { name: 'audit.jsonl', data: aud },
    ...(ep !== undefined ? [{ name: 'episodes.jsonl', data: ep }] : []),
    { name: 'manifest.json', data: JSON.stringify(manifest) },
  ]);
  return file;
}
