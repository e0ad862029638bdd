/**
 * Changes Mnemo proposes to files that are not its own (an agent's configuration, an instruction file in a
 * repository): planned as a diff, written only when accepted, undone by taking Mnemo's part out again.
 * Connect an Agent, promote-to-repo and the agent hooks build on these:
 *
 * - {@link planChange} reads the file and diffs it against the new text (nothing is written);
 * - {@link applyChange} keeps a copy of the previous file in Mnemo's own backup folder (0600, never next to
 *   the file: a backup in a repository would be committed), then replaces the file atomically, through a
 *   symlink (the link stays a link) and with the file's own mode;
 * - {@link planUndo} / {@link applyUndo} take only Mnemo's part out of the file as it is now (never an old
 *   copy back over later edits); a file left with nothing else in it goes;
 * - {@link editJson} / {@link readJson} edit JSON (with comments, a byte-order mark, numbers of any size)
 *   in place: only the value at the path changes, every other byte stays;
 * - {@link upsertSection} / {@link removeSection} own a marker-delimited section of a Markdown file, and
 *   refuse a file whose markers are not one well-formed pair.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { InvalidInputError } from './errors';
import { replaceFile } from './atomicFile';

export interface FileChange {
  file: string;
  before: string | undefined;
  /** undefined: the file is removed. */
  after: string | undefined;
  changed: boolean;
  diff: string;
  /** What the person should know beyond the diff (a data folder that changes, a file that stays). */
  notes?: string[];
}

export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A unified diff of a planned change (what the person sees before anything is written). */
export function unifiedDiff(file: string, before: string | undefined, after: string | undefined): string {
  return createTwoFilesPatch(
    before === undefined ? '/dev/null' : file,
    after === undefined ? '/dev/null' : file,
    before ?? '',
    after ?? '',
    '',
    '',
    { context: 3 },
  );
}

/** The change from the file as it is now to `after` (undefined: remove it). Writes nothing. */
export function planChange(file: string, after: string | undefined, notes: string[] = []): FileChange {
  const before = readIfExists(file);
  return {
    file,
    before,
    after,
    changed: before !== after,
    diff: before === after ? '' : unifiedDiff(file, before, after),
    ...(notes.length ? { notes } : {}),
  };
}

/**
 * Mnemo's folder of backups of files it changed: `$XDG_STATE_HOME/mnemo/file-backups` (default
 * `~/.local/state/…`), `~/Library/Application Support/mnemo/file-backups`, `%LOCALAPPDATA%\mnemo\file-backups`.
 */
export function backupFolder(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'mnemo', 'file-backups');
  if (process.platform === 'darwin')
    return join(home, 'Library', 'Application Support', 'mnemo', 'file-backups');
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'mnemo', 'file-backups');
}

/** Where the copy of `file` from before Mnemo's last change is kept: its name and a hash of its real path. */
export function backupPath(file: string): string {
  const real = realTarget(file);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return join(backupFolder(), `${basename(real)}.${hash}.bak`);
}

/** The file a path names: a symlink's target (written through, the link kept), else the path itself. */
function realTarget(file: string): string {
  try {
    return lstatSync(file).isSymbolicLink() ? realpathSync(file) : file;
  } catch {
    return file;
  }
}

/**
 * Writes a planned change: the previous file (if any) is copied to {@link backupPath} (0600, in Mnemo's
 * backup folder, whatever mode an older copy had), then the new text replaces the file atomically with the
 * file's own mode (0644 for a new one), through a symlink.
 */
export function applyChange(c: FileChange): void {
  if (!c.changed) return;
  const target = realTarget(c.file);
  if (c.before !== undefined) {
    const backup = backupPath(c.file);
    mkdirSync(dirname(backup), { recursive: true, mode: 0o700 });
    writeFileSync(backup, c.before, { mode: 0o600 });
    chmodSync(backup, 0o600);
  }
  if (c.after === undefined) {
    rmSync(c.file, { force: true });
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  let mode = 0o644;
  try {
    mode = statSync(target).mode & 0o777;
  } catch {
    // a new file
  }
  replaceFile(target, c.after, mode);
}

/**
 * Undo: Mnemo's part taken out of the file as it is now (`remove` returns the text without it, or
 * undefined when nothing else is left: the file goes). Never an old copy back over later edits.
 */
export function planUndo(file: string, remove: (text: string) => string | undefined): FileChange {
  const before = readIfExists(file);
  if (before === undefined) return planChange(file, undefined);
  return planChange(file, remove(before));
}

/** Writes a planned undo (as {@link applyChange}: the file as it was is kept in the backup folder). */
export function applyUndo(c: FileChange): void {
  applyChange(c);
}

// ---------------------------------------------------------------- JSON, edited in place

const BOM = '\uFEFF';

/** The value of a JSON (or JSON with comments) text; one sentence naming the file when it does not parse. */
export function readJson(text: string | undefined, file: string): unknown {
  if (text === undefined || !text.replace(BOM, '').trim()) return undefined;
  const errors: ParseError[] = [];
  const value: unknown = parse(text.replace(/^\uFEFF/, ''), errors, {
    allowTrailingComma: true,
    disallowComments: false,
  });
  if (errors.length) {
    const e = errors[0]!;
    throw new InvalidInputError(
      `${file} is not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset}); fix it or move it away, Mnemo did not change it.`,
    );
  }
  return value;
}

/** The indentation and line ends the text already uses (two spaces and LF for a new file). */
function formatting(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /^( +|\t)\S/m.exec(text)?.[1];
  return {
    insertSpaces: indent !== '\t',
    tabSize: indent && indent !== '\t' ? indent.length : 2,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/**
 * The JSON text with the value at `path` set (or removed, for `undefined`): only that part of the text
 * changes; comments, key order, a byte-order mark and numbers of any size are kept as they were.
 */
export function editJson(text: string | undefined, path: string[], value: unknown): string {
  const bom = text?.startsWith(BOM) ? BOM : '';
  const body = text?.replace(/^\uFEFF/, '').trim() ? text.replace(/^\uFEFF/, '') : '{}\n';
  const edits = modify(body, path, value, { formattingOptions: formatting(body) });
  const out = applyEdits(body, edits);
  return bom + (out.endsWith('\n') ? out : out + '\n');
}

// ---------------------------------------------------------------- sections Mnemo owns in Markdown

/** Where a section begins and ends (-1, -1 when there is none); refuses markers that are not one pair. */
function sectionBounds(text: string, begin: string, end: string, file: string): [number, number] {
  const count = (m: string) => text.split(m).length - 1;
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (count(begin) === 0 && count(end) === 0) return [-1, -1];
  if (count(begin) === 1 && count(end) === 1 && a < b) return [a, b];
  const line = (i: number) => text.slice(0, Math.max(0, i)).split('\n').length;
  throw new InvalidInputError(
    `${file} has Mnemo's section markers out of order (${count(begin)} begin marker${count(begin) === 1 ? '' : 's'}${a >= 0 ? ` from line ${line(a)}` : ''}, ${count(end)} end marker${count(end) === 1 ? '' : 's'}${b >= 0 ? ` from line ${line(b)}` : ''}); put them right by hand, Mnemo did not change it.`,
  );
}

/** Replaces or appends a marker-delimited section Mnemo owns in a Markdown file. Pure and idempotent. */
export function upsertSection(
  existing: string | undefined,
  begin: string,
  end: string,
  body: string,
  file = 'the file',
): string {
  const block = `${begin}\n${body.trimEnd()}\n${end}`;
  const text = existing ?? '';
  const [a, b] = sectionBounds(text, begin, end, file);
  if (a >= 0) return text.slice(0, a) + block + text.slice(b + end.length);
  const base = text.replace(/\s*$/, '');
  return (base ? `${base}\n\n` : '') + block + '\n';
}

/** The Markdown without Mnemo's section (undefined when nothing else is left). */
export function removeSection(
  existing: string,
  begin: string,
  end: string,
  file = 'the file',
): string | undefined {
  const [a, b] = sectionBounds(existing, begin, end, file);
  if (a < 0) return existing;
  const text = (
    existing.slice(0, a).replace(/\s*$/, '') +
    '\n\n' +
    existing.slice(b + end.length).replace(/^\s*/, '')
  ).trim();
  return text ? text + '\n' : undefined;
}

/**
 * Text that cannot open or close an HTML comment (so no memory text can end Mnemo's section or hide the
 * lines after it): `<!--` and `-->` are written with an entity, which Markdown shows as the same characters.
 */
export function inertInMarkdown(text: string): string {
  return text.replace(/<!--/g, '&lt;!--').replace(/-->/g, '--&gt;');
}
