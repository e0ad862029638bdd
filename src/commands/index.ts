/** Registers every command at activation (each file registers its own). */
import type { Ctx } from '../ctx';
import type { Views } from '../views';
import * as backup from './backup';
import * as cleanLowConfidence from './cleanLowConfidence';
import * as connectAgent from './connectAgent';
import * as editMemory from './editMemory';
import * as exportReadable from './exportReadable';
import * as feedback from './feedback';
import * as importAgentRules from './importAgentRules';
import * as importChat from './importChat';
import * as ledger from './ledger';
import * as memoryActions from './memoryActions';
import * as previewInjection from './previewInjection';
import * as promoteToRepository from './promoteToRepository';
import * as proposedChange from './proposedChange';
import * as reembed from './reembed';
import * as rememberSelection from './rememberSelection';
import * as searchMemories from './searchMemories';
import * as secrets from './secrets';
import * as showAuditLog from './showAuditLog';
import * as sidecar from './sidecar';
import * as treeOptions from './treeOptions';

/** Registers every command; the views go to the commands that act on them (reveal, selection, filter). */
export function registerCommands(ctx: Ctx, views: Views): void {
  for (const m of [
    rememberSelection,
    searchMemories,
    feedback,
    editMemory,
    cleanLowConfidence,
    showAuditLog,
    previewInjection,
    ledger,
    importChat,
    memoryActions,
    sidecar,
    secrets,
    reembed,
    backup,
    connectAgent,
    importAgentRules,
    promoteToRepository,
    proposedChange,
    exportReadable,
    treeOptions,
  ]) {
    m.register(ctx, views);
  }
}
