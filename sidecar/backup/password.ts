/**
 * The backup password for the CLI: from stdin (`--password-stdin`, one line), from `MNEMO_BACKUP_PASSWORD`,
 * or typed at a prompt on a terminal without echo. Never from a command-line argument (it would show up in
 * `ps` and the shell history).
 */
import { CancelledError, InvalidInputError } from '../shared/errors';

export const PASSWORD_ENV = 'MNEMO_BACKUP_PASSWORD';

/** The streams a prompt needs; process.stdin/process.stderr by default. */
export interface PasswordIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** Where the prompt is written (stderr, so stdout stays clean for --json). */
  prompt: NodeJS.WritableStream;
}

export interface ReadPasswordOptions {
  /** Read one line from stdin (`--password-stdin`). */
  fromStdin?: boolean;
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Ask twice at the prompt and require both to match (export). Default false. */
  confirm?: boolean;
  /** Default "Backup password: ". */
  label?: string;
  io?: PasswordIo;
}

/** Resolves the backup password in this order: `--password-stdin`, `MNEMO_BACKUP_PASSWORD`, a no-echo prompt on a TTY. */
export async function readBackupPassword(opts: ReadPasswordOptions = {}): Promise<string> {
  const io: PasswordIo = opts.io ?? { stdin: process.stdin, prompt: process.stderr };
  const env = opts.env ?? process.env;
  let password: string;
  if (opts.fromStdin) {
    password = (await readAll(io.stdin)).replace(/\r?\n$/, '');
  } else if (env[PASSWORD_ENV]) {
    password = env[PASSWORD_ENV]!;
  } else if (io.stdin.isTTY && io.stdin.setRawMode) {
    password = await promptHidden(io, opts.label ?? 'Backup password: ');
    if (opts.confirm) {
      const again = await promptHidden(io, 'Repeat the password: ');
      if (again !== password) throw new InvalidInputError('The two passwords do not match.');
    }
  } else {
    throw new InvalidInputError(
      `No backup password: type it at a terminal, pass --password-stdin, or set ${PASSWORD_ENV}.`,
    );
  }
  if (!password) throw new InvalidInputError('The backup password is empty.');
  return password;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads one line in raw mode without echoing it; Ctrl-C cancels, Backspace deletes. */
function promptHidden(io: PasswordIo, label: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = io.stdin;
    let value = '';
    const done = (err?: Error): void => {
      stdin.removeListener('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.prompt.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string): void => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003')
          return done(new CancelledError('Cancelled at the password prompt; nothing was changed.'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    io.prompt.write(label);
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
