/**
 * What the language client writes into Mnemo's log: it appends `[Error - 10:01:02] …` lines as plain text,
 * so a normal stop read as "[Error] Server process exited with code 0". Each line goes to the log at the
 * level it names, and a clean exit (code 0) is information. No `vscode` import; unit-tested in
 * test/unit/clientLog.test.ts.
 */
export type LineLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const PREFIX = /^\[(Trace|Debug|Info|Warn|Error)\s*-\s*[^\]]*\]\s?/;
const LEVEL: Record<string, LineLevel> = {
  Trace: 'trace',
  Debug: 'debug',
  Info: 'info',
  Warn: 'warn',
  Error: 'error',
};

/** The level and message of a client line; undefined for a line without the client's prefix. */
export function clientLine(line: string): { level: LineLevel; message: string } | undefined {
  const m = PREFIX.exec(line);
  if (!m) return undefined;
  const message = line.slice(m[0].length);
  if (/^Server process exited with code 0\.?$/.test(message.trim()))
    return { level: 'info', message: 'The sidecar process exited normally (code 0).' };
  return { level: LEVEL[m[1]!] ?? 'info', message };
}
