/** `mnemo.setChromaToken` and `mnemo.setLlmApiKey`: store secrets in SecretStorage (empty input clears). */
import * as vscode from 'vscode';
import { SECRETS } from '../config';
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import { Command } from '../commandIds';

async function setSecret(
  ctx: Ctx,
  views: Views,
  key: string,
  title: string,
  prompt: string,
): Promise<boolean | undefined> {
  const had = (await ctx.extension.secrets.get(key)) !== undefined;
  const value = await vscode.window.showInputBox({
    title,
    prompt: `${prompt}${had ? ' Leave empty to remove the stored one.' : ''}`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: had ? '(a value is stored)' : undefined,
  });
  if (value === undefined) return undefined;
  if (value.trim()) {
    await ctx.extension.secrets.store(key, value.trim());
    views.statusBar.flash(`${title.replace(/^Mnemo: Set /, '')} stored in VS Code's secret storage`);
    return true;
  }
  if (had) {
    await ctx.extension.secrets.delete(key);
    views.statusBar.flash(`${title.replace(/^Mnemo: Set /, '')} removed`);
  }
  return false;
}

export function register(ctx: Ctx, views: Views): void {
  // The context listens to secret changes: the token prompts a restart, the key is pushed live.
  ctx.registerCommand(Command.setChromaToken, () =>
    setSecret(
      ctx,
      views,
      SECRETS.chromaToken,
      'Mnemo: Set Chroma Token',
      'The token of your Chroma server (sent as the auth header).',
    ),
  );
  ctx.registerCommand(Command.setLlmApiKey, () =>
    setSecret(
      ctx,
      views,
      SECRETS.llmApiKey,
      'Mnemo: Set LLM API Key',
      'The API key of the OpenAI-compatible LLM (also used by the "openai" embedding provider).',
    ),
  );
}
