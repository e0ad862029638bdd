/**
 * The command table: every `mnemo` command, in the order `mnemo --help` lists them. cli.ts looks a command
 * up here and runs it.
 */
import type { CliCommand, CliValues } from '../args';
import { backupExport, backupImport } from './backup';
import { clean, compact, decay, wipe } from './maintenance';
import { audit, confirm, ingest, ledger, list, recall, review, show, stats } from './memories';

export const COMMANDS: readonly CliCommand[] = [
  ingest,
  recall,
  list,
  show,
  ledger,
  confirm,
  review,
  decay,
  clean,
  audit,
  wipe,
  compact,
  backupExport,
  backupImport,
  stats,
];

/** The row that runs `name` with these options, if any. */
export function findCommand(name: string, values: CliValues): CliCommand | undefined {
  return COMMANDS.find((c) => c.names.includes(name) && (c.when?.(values) ?? true));
}
