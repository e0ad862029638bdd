/**
 * Pause / Resume of capture (`mnemo.pauseCapture`, `mnemo.resumeCapture`): while paused, nothing from the
 * terminal, from @mnemo chats or from agents' sessions of this workspace's folders is learned (the sidecar
 * keeps agents' hooks paused for these folders too: capture/agents.ts). Remembered per workspace; shown in the status bar
 * (and the `mnemo.capturePaused` context key picks the view-title action).
 */
import * as vscode from 'vscode';
import { BuiltinCommand } from '../commandIds';
import { ContextKey } from './contextValues';

const KEY = 'mnemo.capture.paused';

export class CapturePause implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<boolean>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly state: vscode.Memento) {
    void vscode.commands.executeCommand(BuiltinCommand.setContext, ContextKey.CapturePaused, this.paused);
  }

  dispose(): void {
    this.emitter.dispose();
  }

  get paused(): boolean {
    return this.state.get<boolean>(KEY) === true;
  }

  async set(paused: boolean): Promise<void> {
    if (paused === this.paused) return;
    await this.state.update(KEY, paused);
    await vscode.commands.executeCommand(BuiltinCommand.setContext, ContextKey.CapturePaused, paused);
    this.emitter.fire(paused);
  }
}
