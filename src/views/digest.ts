/**
 * The daily digest: once a day (in the user's time zone), when memories wait for review, a
 * notification names the top ones by score and offers "Review".
 */
import * as vscode from 'vscode';
import type { Memory } from '../../sidecar/model';
import { config } from '../config';
import type { Ctx } from '../ctx';
import { errorDetail } from '../errors';
import { localDay } from '../time';
import { shortText } from './present';
import { BuiltinCommand } from '../commandIds';

export const DIGEST_SIZE = 10;
const LAST_SHOWN_KEY = 'mnemo.digest.lastShownDay';

export class DailyDigest {
  private inFlight = false;

  constructor(
    private readonly ctx: Ctx,
    private readonly pending: (limit: number) => Promise<Memory[]>,
  ) {}

  /** Shows the digest unless it was shown today, is disabled, or nothing is pending. */
  async maybeShow(): Promise<boolean> {
    if (this.inFlight || !config.review.dailyDigest() || !this.ctx.isRunning) return false;
    const today = localDay(new Date(), config.display.timeZone());
    if (this.ctx.extension.globalState.get<string>(LAST_SHOWN_KEY) === today) return false;
    this.inFlight = true;
    try {
      const top = await this.pending(DIGEST_SIZE);
      if (top.length === 0) return false;
      await this.ctx.extension.globalState.update(LAST_SHOWN_KEY, today);
      const names = top
        .slice(0, 3)
        .map((m) => `“${shortText(m.text, 50)}”`)
        .join(', ');
      const more = top.length > 3 ? ` and ${top.length - 3} more` : '';
      void vscode.window
        .showInformationMessage(`Mnemo: ${top.length} memories wait for your review today: ${names}${more}.`, 'Review', 'Not Today')
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
