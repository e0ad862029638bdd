/**
 * Every command id Mnemo contributes (package.json `contributes.commands` is the manifest; this is the
 * one place the ids are spelled in code), plus the built-in workbench commands Mnemo runs. No `vscode`
 * import: `test/unit/commandIds.test.ts` checks that every contributed command has a constant here and
 * is registered, and vice versa.
 */
export const Command = {
  rememberSelection: 'mnemo.rememberSelection',
  searchMemories: 'mnemo.searchMemories',
  confirmMemory: 'mnemo.confirmMemory',
  confirmFromFile: 'mnemo.confirmFromFile',
  markWrong: 'mnemo.markWrong',
  rejectMemory: 'mnemo.rejectMemory',
  editMemory: 'mnemo.editMemory',
  editMemoryText: 'mnemo.editMemoryText',
  openSource: 'mnemo.openSource',
  showMemory: 'mnemo.showMemory',
  showServedRecall: 'mnemo.showServedRecall',
  explainCapture: 'mnemo.explainCapture',
  copyMemory: 'mnemo.copyMemory',
  promoteMemory: 'mnemo.promoteMemory',
  deleteMemory: 'mnemo.deleteMemory',
  revealMemory: 'mnemo.revealMemory',
  cleanLowConfidence: 'mnemo.cleanLowConfidence',
  showAuditLog: 'mnemo.showAuditLog',
  previewInjection: 'mnemo.previewInjection',
  importChat: 'mnemo.importChat',
  pauseCapture: 'mnemo.pauseCapture',
  resumeCapture: 'mnemo.resumeCapture',
  openDashboard: 'mnemo.openDashboard',
  reviewPending: 'mnemo.reviewPending',
  clearFilter: 'mnemo.clearFilter',
  filterMemories: 'mnemo.filterMemories',
  sortMemories: 'mnemo.sortMemories',
  showRecentMemories: 'mnemo.showRecentMemories',
  showGroupedMemories: 'mnemo.showGroupedMemories',
  showHiddenMemories: 'mnemo.showHiddenMemories',
  hideHiddenMemories: 'mnemo.hideHiddenMemories',
  refreshViews: 'mnemo.refreshViews',
  connectAgent: 'mnemo.connectAgent',
  disconnectAgent: 'mnemo.disconnectAgent',
  importAgentRules: 'mnemo.importAgentRules',
  promoteToRepository: 'mnemo.promoteToRepository',
  writeProposedChanges: 'mnemo.writeProposedChanges',
  cancelProposedChanges: 'mnemo.cancelProposedChanges',
  exportReadable: 'mnemo.exportReadable',
  loadMore: 'mnemo.loadMore',
  showOutput: 'mnemo.showOutput',
  restartSidecar: 'mnemo.restartSidecar',
  setChromaToken: 'mnemo.setChromaToken',
  setLlmApiKey: 'mnemo.setLlmApiKey',
  reembedMemories: 'mnemo.reembedMemories',
  exportBackup: 'mnemo.exportBackup',
  importBackup: 'mnemo.importBackup',
  learnFromAgents: 'mnemo.learnFromAgents',
  enableAgentSource: 'mnemo.enableAgentSource',
  disableAgentSource: 'mnemo.disableAgentSource',
  captureAgentSessions: 'mnemo.captureAgentSessions',
  installCaptureHooks: 'mnemo.installCaptureHooks',
  removeCaptureHooks: 'mnemo.removeCaptureHooks',
  groupReview: 'mnemo.groupReview',
  confirmReviewGroup: 'mnemo.confirmReviewGroup',
  rejectReviewGroup: 'mnemo.rejectReviewGroup',
} as const;

export type CommandId = (typeof Command)[keyof typeof Command];

/** View ids (package.json `contributes.views`). */
export const ViewId = {
  memories: 'mnemo.views.memories',
  review: 'mnemo.views.review',
  sources: 'mnemo.views.sources',
  ledger: 'mnemo.views.ledger',
} as const;

/** Mnemo's walkthrough: `<publisher>.<name>#<walkthrough id>` (package.json `contributes.walkthroughs`). */
export const WALKTHROUGH = 'mnemo.mnemo#gettingStarted';

/** Commands VS Code itself provides that Mnemo runs. */
export const BuiltinCommand = {
  /** The view container's "show" command: opens the Mnemo side bar. */
  showMnemoContainer: 'workbench.view.extension.mnemo',
  focusMemories: `${ViewId.memories}.focus`,
  focusReview: `${ViewId.review}.focus`,
  openSettings: 'workbench.action.openSettings',
  revealFileInOS: 'revealFileInOS',
  setContext: 'setContext',
  /** What Enter does in a list (expand a group). */
  listSelect: 'list.select',
  /** Opens several files' changes in one changes editor (the proposals of Connect an Agent, Promote). */
  changes: 'vscode.changes',
  /** Opens a walkthrough ({@link WALKTHROUGH}) on the Welcome page. */
  openWalkthrough: 'workbench.action.openWalkthrough',
  /** Renders a Markdown document (Preview Injection). */
  markdownPreview: 'markdown.showPreview',
} as const;
