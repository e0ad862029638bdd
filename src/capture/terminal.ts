/**
 * Terminal capture through shell integration (feature-detected): every finished command (command line,
 * cwd, exit code, duration, output bounded and ANSI-stripped) joins its terminal's session; a session
 * is sent with `mnemo/capture/session` after `mnemo.capture.terminal.idleGapSeconds` of quiet or when
 * the terminal closes, as a `terminal` session in the format of sidecar/shared/terminal.ts. Whether a
 * failing command was fixed is the sidecar's call (its terminal stage), not ours. Excluded command lines
 * never leave the extension. When a session it sent keeps nothing, {@link TerminalCapture.onDidKeepNothing}
 * says so with the pipeline's reasons (the status bar's quiet "nothing kept — why?").
 */
import * as vscode from 'vscode';
import {
  CaptureSessionRequest,
  type CaptureProcessedParams,
  type SessionInput,
} from '../../sidecar/protocol';
import { currentUser } from '../client';
import { compilePatterns, config } from '../config';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import { projectIdForCwd } from '../projects';
import type { CapturePause } from '../shared/pause';
import { boundOutput, isExcludedCommand, sessionMessages, type Execution } from './terminalSession';

export type { Execution } from './terminalSession';
import { BuiltinCommand } from '../commandIds';
import { cutText } from '../../sidecar/shared/text';

interface Running {
  startedAt: number;
  /** The first `maxOutputBytes` characters. */
  head: string;
  /** A bounded window of the latest output after the head. */
  tail: string;
  /** Output between head and tail was dropped. */
  truncated: boolean;
  reading: Promise<void>;
}

interface Session {
  id: string;
  terminal: vscode.Terminal;
  executions: Execution[];
  timer?: NodeJS.Timeout;
}

let sessionCounter = 0;

/** A terminal session that was learned from and kept nothing: what it was, and what the pipeline said. */
export interface NothingKept {
  /** "2 commands in “bash”" */
  what: string;
  /** UTC ISO time the outcome arrived. */
  at: string;
  outcome: CaptureProcessedParams;
}

/** Sessions sent whose outcome has not arrived yet, at most (the oldest are forgotten first). */
const MAX_AWAITED = 100;

export class TerminalCapture implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly running = new Map<vscode.TerminalShellExecution, Running>();
  private readonly sessions = new Map<vscode.Terminal, Session>();
  private readonly hintTimers = new Map<vscode.Terminal, NodeJS.Timeout>();
  private hinted = false;
  private excludes = compilePatterns(config.capture.terminal.excludePatterns());
  /** True when this VS Code has the shell execution API. */
  readonly supported: boolean;
  /** Sessions sent, and the last one (tests and diagnostics). */
  sent = 0;
  lastSent: SessionInput | undefined;
  /** Sessions sent and not processed yet, by queue id: what each was. */
  private readonly awaited = new Map<string, string>();
  private readonly keptNothingEmitter = new vscode.EventEmitter<NothingKept>();
  /** Fires when a session this window sent was processed and kept nothing. */
  readonly onDidKeepNothing = this.keptNothingEmitter.event;
  /** The last session that kept nothing (Mnemo: Why Was Nothing Kept?). */
  lastNothingKept: NothingKept | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly pause: CapturePause,
  ) {
    const w = vscode.window as Partial<typeof vscode.window>;
    this.supported =
      typeof w.onDidEndTerminalShellExecution === 'function' &&
      typeof w.onDidStartTerminalShellExecution === 'function';
    if (!this.supported) {
      ctx.log.info('Terminal capture is unavailable: this VS Code has no shell execution API.');
      return;
    }
    this.logInvalid();
    this.disposables.push(
      this.keptNothingEmitter,
      ctx.onDidProcessCapture((p) => this.onProcessed(p)),
      vscode.window.onDidStartTerminalShellExecution((e) => this.onStart(e)),
      vscode.window.onDidEndTerminalShellExecution((e) => void this.onEnd(e)),
      vscode.window.onDidCloseTerminal((t) => {
        this.clearHint(t);
        void this.flush(t);
      }),
      vscode.window.onDidOpenTerminal((t) => this.watchShellIntegration(t)),
      vscode.window.onDidChangeTerminalShellIntegration((e) => this.clearHint(e.terminal)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mnemo.capture.terminal.excludePatterns')) {
          this.excludes = compilePatterns(config.capture.terminal.excludePatterns());
          this.logInvalid();
        }
      }),
    );
    for (const t of vscode.window.terminals) this.watchShellIntegration(t);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const t of this.hintTimers.values()) clearTimeout(t);
    // Send what we have: the sidecar's queue is durable once the request returns.
    for (const terminal of [...this.sessions.keys()]) void this.flush(terminal);
  }

  private logInvalid(): void {
    if (this.excludes.invalid.length) {
      this.ctx.log.warn(
        `Ignoring invalid mnemo.capture.terminal.excludePatterns: ${this.excludes.invalid.join(', ')}`,
      );
    }
  }

  /** Whether a command line is excluded from capture (per command of a chain for `^…` patterns). */
  isExcluded(command: string): boolean {
    return isExcludedCommand(command, this.excludes.regexes);
  }

  private onStart(e: vscode.TerminalShellExecutionStartEvent): void {
    this.clearHint(e.terminal);
    if (!config.capture.terminal.enabled() || this.pause.paused) return;
    const max = config.capture.terminal.maxOutputBytes();
    const run: Running = {
      startedAt: Date.now(),
      head: '',
      tail: '',
      truncated: false,
      reading: Promise.resolve(),
    };
    // read() must start right away; only data after the first call is delivered.
    const stream = e.execution.read();
    run.reading = (async () => {
      try {
        for await (const chunk of stream) {
          let rest = chunk;
          if (run.head.length < max) {
            const room = max - run.head.length;
            const head = cutText(chunk, room); // never half an emoji in the head and half in the tail
            run.head += head;
            rest = chunk.slice(head.length);
          }
          if (rest) {
            run.tail += rest;
            // Keep a window a few times the bound (escape codes inflate it); boundOutput trims precisely.
            if (run.tail.length > max * 4) {
              run.tail = run.tail.slice(-max * 4);
              run.truncated = true;
            }
          }
        }
      } catch (err) {
        this.ctx.log.debug(`Reading terminal output stopped: ${errorDetail(err)}`);
      }
    })();
    this.running.set(e.execution, run);
  }

  private async onEnd(e: vscode.TerminalShellExecutionEndEvent): Promise<void> {
    const run = this.running.get(e.execution);
    this.running.delete(e.execution);
    if (!config.capture.terminal.enabled() || this.pause.paused) return;
    const command = e.execution.commandLine.value.trim();
    if (!command || this.isExcluded(command)) return;
    const endedAt = Date.now();
    if (run) {
      // The stream ends with the execution; bound the wait in case the shell never closes it.
      await Promise.race([run.reading, new Promise<void>((r) => setTimeout(r, 1000))]);
    }
    const execution: Execution = {
      command,
      cwd: e.execution.cwd?.fsPath,
      exitCode: e.exitCode,
      startedAt: run?.startedAt ?? endedAt,
      endedAt,
      output: boundOutput(
        run ? `${run.head}${run.truncated ? '\n…\n' : ''}${run.tail}` : '',
        config.capture.terminal.maxOutputBytes(),
      ),
    };
    this.add(e.terminal, execution);
  }

  /** Adds an execution to its terminal's session and restarts the idle timer. */
  add(terminal: vscode.Terminal, execution: Execution): void {
    let session = this.sessions.get(terminal);
    if (!session) {
      session = {
        id: `term-${Date.now().toString(36)}-${(sessionCounter++).toString(36)}`,
        terminal,
        executions: [],
      };
      this.sessions.set(terminal, session);
    }
    session.executions.push(execution);
    if (session.timer) clearTimeout(session.timer);
    session.timer = setTimeout(
      () => void this.flush(terminal),
      config.capture.terminal.idleGapSeconds() * 1000,
    );
  }

  /** Sends a terminal's session now (idle gap passed, terminal closed, or extension shutting down). */
  async flush(terminal: vscode.Terminal): Promise<void> {
    const session = this.sessions.get(terminal);
    if (!session) return;
    this.sessions.delete(terminal);
    if (session.timer) clearTimeout(session.timer);
    if (session.executions.length === 0) return;
    const cwds = [...new Set(session.executions.map((e) => e.cwd).filter((c): c is string => !!c))];
    try {
      const input: SessionInput = {
        project_id: projectIdForCwd(cwds[0]),
        source_type: 'terminal',
        messages: sessionMessages(session.id, session.executions),
        source_ref: [`terminal:${terminal.name}`, ...cwds.map((c) => `cwd:${c}`)],
        added_by: currentUser(),
        session_id: session.id,
      };
      const result = await this.ctx.request(CaptureSessionRequest, { ...input, live: true });
      this.sent++;
      this.lastSent = input;
      const n = session.executions.length;
      this.awaited.set(result.queue_id, `${n} command${n === 1 ? '' : 's'} in “${terminal.name}”`);
      if (this.awaited.size > MAX_AWAITED) this.awaited.delete(this.awaited.keys().next().value!);
      this.ctx.log.info(
        `Captured terminal session ${session.id} (${session.executions.length} commands${result.redactions ? `, ${result.redactions} redactions` : ''}).`,
      );
    } catch (err) {
      this.ctx.log.warn(`Terminal session ${session.id} was not captured: ${errorDetail(err)}`);
    }
  }

  /** A session this window sent was processed: when it kept nothing, say so (with why). */
  private onProcessed(p: CaptureProcessedParams): void {
    const what = this.awaited.get(p.queue_id);
    if (what === undefined) return;
    this.awaited.delete(p.queue_id);
    if (p.stored + p.refreshed + p.pending > 0) return;
    this.lastNothingKept = { what, at: new Date().toISOString(), outcome: p };
    this.keptNothingEmitter.fire(this.lastNothingKept);
  }

  /** One clear hint, once, when a terminal has no shell integration after a while. */
  private watchShellIntegration(terminal: vscode.Terminal): void {
    if (this.hinted || terminal.shellIntegration || !config.capture.terminal.enabled()) return;
    const timer = setTimeout(() => {
      this.hintTimers.delete(terminal);
      if (
        this.hinted ||
        terminal.shellIntegration ||
        terminal.exitStatus ||
        !config.capture.terminal.enabled()
      )
        return;
      this.hinted = true;
      void vscode.window
        .showInformationMessage(
          `Mnemo cannot learn from the terminal "${terminal.name}": its shell integration is not active (supported shells: bash, zsh, fish, pwsh).`,
          'Open Setting',
          'Turn Off Terminal Capture',
        )
        .then((choice) => {
          if (choice === 'Open Setting')
            void vscode.commands.executeCommand(
              BuiltinCommand.openSettings,
              'terminal.integrated.shellIntegration.enabled',
            );
          else if (choice === 'Turn Off Terminal Capture') {
            void vscode.workspace
              .getConfiguration('mnemo')
              .update('capture.terminal.enabled', false, vscode.ConfigurationTarget.Global);
          }
        });
    }, 15_000);
    this.hintTimers.set(terminal, timer);
  }

  private clearHint(terminal: vscode.Terminal): void {
    const t = this.hintTimers.get(terminal);
    if (t) clearTimeout(t);
    this.hintTimers.delete(terminal);
  }
}
