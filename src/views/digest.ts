/**
 * The daily digest: once a day (in the user's time zone), when memories of the workspace's projects wait
 * for review, a notification names the top ones by score and offers "Review". It never pops up while the
 * window is starting: the first one waits {@link STARTUP_QUIET_MS} after activation.
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { BuiltinCommand } from '../commandIds';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import { localDay } from '../time';
import { shortText } from './present';
import type { WorkspaceCounts } from './workspaceCounts';

export const DIGEST_SIZE = 10;
/** No digest in the first minutes of a session: starting up is busy enough. */
export const STARTUP_QUIET_MS = 3 * 60_000;
const LAST_SHOWN_KEY = 'mnemo.digest.lastShownDay';

export class DailyDigest implements vscode.Disposable {
  private inFlight = false;
  private readonly startedAt = Date.now();
  private later: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Ctx,
    private readonly counts: WorkspaceCounts,
    private readonly pending: (limit: number) => Promise<Memory[]>,
  ) {}

  dispose(): void {
    if (this.later) clearTimeout(this.later);
  }

  /** Shows the digest unless it was shown today, is disabled, nothing is pending, or the window just started. */
  async maybeShow(): Promise<boolean> {
    if (this.inFlight || !config.review.dailyDigest() || !this.ctx.isRunning) return false;
    const quiet = this.startedAt + STARTUP_QUIET_MS - Date.now();
    if (quiet > 0) {
      this.later ??= setTimeout(() => {
        this.later = undefined;
        void this.maybeShow();
      }, quiet);
      return false;
    }
    const today = localDay(new Date(), config.display.timeZone());
    if (this.ctx.extension.globalState.get<string>(LAST_SHOWN_KEY) === today) return false;
    this.inFlight = true;
    try {
      const total = (await this.counts.ensure())?.pending ?? 0;
      const top = total > 0 ? await this.pending(DIGEST_SIZE) : [];
      if (top.length === 0) return false;
      await this.ctx.extension.globalState.update(LAST_SHOWN_KEY, today);
      const names = top
        .slice(0, 3)
        .map((m) => `“${shortText(m.text, 50)}”`)
        .join(', ');
      const waiting = Math.max(total, top.length);
      const more = waiting > 3 ? ` and ${waiting - 3} more` : '';
      void vscode.window
        .showInformationMessage(
          `Mnemo: ${waiting} ${waiting === 1 ? 'memory waits' : 'memories wait'} for your review today: ${names}${more}.`,
          'Review',
          'Not Today',
        )
        .then((choice) => {
          if (choice === 'Review') void vscode.commands.executeCommand(BuiltinCommand.focusReview);
        });
      return true;
    } catch (err) {
      this.ctx.log.warn(`Daily digest skipped: ${errorDetail(err)}`);
      return false;
    } finally {
      this.inFlight = false;
    }
  }
}
