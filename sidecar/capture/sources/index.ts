/** Every agent Mnemo captures, one adapter each (docs/capture.md has the table). Adding an agent: one line here. */
import type { SourceAdapter } from '../types';
import { claudeCode } from './claudeCode';
import { cline } from './cline';
import { codex } from './codex';
import { copilotCli } from './copilotCli';
import { cursor } from './cursor';
import { geminiCli } from './geminiCli';
import { rooCode } from './rooCode';
import { vscodeChat } from './vscodeChat';

export const ADAPTERS: readonly SourceAdapter[] = [
  vscodeChat,
  claudeCode,
  codex,
  copilotCli,
  cline,
  rooCode,
  geminiCli,
  cursor,
];
