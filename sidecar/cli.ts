/**
 * `mnemo`: the same core as the sidecar, without VS Code — for scripts, benchmarks and other agents.
 * Every failure is one sentence on stderr and a non-zero exit code; nothing stored is touched by bad input.
 * The commands are the rows of cli/commands/ (one module per group); main looks one up and runs it.
 */
import { MnemoError, errorMessage } from './shared/errors';
import { parseCli } from './cli/args';
import { USAGE, findCommand } from './cli/commands/index';
import { UsageError, dropOutput, errnoSentence, out, printable } from './cli/shared';

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 2;
  }
  const args = parseCli(command, rest);
  const row = findCommand(command, args.values);
  if (!row) throw new UsageError(`Unknown command "${command}". Run mnemo --help.`);
  return row.run(args);
}

/** Runs the CLI and sets the exit code; errors become one sentence on stderr. */
export function run(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    dropOutput();
    if (e.code === 'EPIPE') return; // the reader is done (| head): not an error
    process.stderr.write(`mnemo: the output could not be written (${errnoSentence(e)}).\n`);
    process.exitCode = 1;
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e; // stderr's reader went away too: nothing left to tell
  });
  return main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      const code = (e as { code?: string })?.code;
      const usage =
        e instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
      const msg = usage || e instanceof MnemoError ? errorMessage(e) : `mnemo failed: ${errnoSentence(e)}.`;
      process.stderr.write(`mnemo: ${printable(msg)}\n`);
      if (process.env.MNEMO_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
      process.exitCode = usage ? 2 : 1;
    },
  );
}

if (require.main === module) void run();
