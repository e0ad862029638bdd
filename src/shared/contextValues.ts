/**
 * Every tree item `contextValue` (package.json menus key off `viewItem == ...` / `viewItem =~ ...`).
 * One memory value per status so menus can hide "Confirm" on confirmed and "Mark as Wrong" on wrong.
 */
export const enum ContextValue {
  Others = 'mnemo:others',
  Project = 'mnemo:project',
  Category = 'mnemo:category',
  Source = 'mnemo:source',
  MemoryActive = 'mnemo:memory:active',
  MemoryPending = 'mnemo:memory:pending',
  MemoryConfirmed = 'mnemo:memory:confirmed',
  MemoryWrong = 'mnemo:memory:wrong',
  MemoryArchived = 'mnemo:memory:archived',
  ReviewItem = 'mnemo:review',
  /** A group of the review queue (by session, source or topic): confirmed or rejected whole. */
  ReviewGroup = 'mnemo:reviewGroup',
  /** An agent of the Agent Sessions view, by the person's answer (`mnemo.capture.sources`). */
  SourceOn = 'mnemo:agent:on',
  SourceOff = 'mnemo:agent:off',
  SourceUnasked = 'mnemo:agent:unasked',
  SourceMissing = 'mnemo:agent:missing',
  /** Rules imported from one file, waiting together in the review queue. */
  ReviewFile = 'mnemo:reviewFile',
  /** A recall in "What My Agents Saw", and one memory or turn it served. */
  Served = 'mnemo:served',
  ServedItem = 'mnemo:servedItem',
  LoadMore = 'mnemo:loadMore',
  /** The "N hidden" row under a project (wrong, archived, superseded). */
  Hidden = 'mnemo:hidden',
  Info = 'mnemo:info',
  /** The "Filtered: …" row at the top while a filter is on. */
  Filter = 'mnemo:filter',
}

/** Context keys set with `setContext` (package.json `when` clauses). */
export const enum ContextKey {
  /** 'starting' | 'running' | 'stopped' | 'failed' */
  SidecarState = 'mnemo.sidecarState',
  FilterActive = 'mnemo.filterActive',
  /** 'grouped' | 'recent': which of the two tree modes the Memories view shows. */
  TreeMode = 'mnemo.treeMode',
  /** true while wrong, archived and superseded memories are listed. */
  ShowHidden = 'mnemo.showHidden',
  /** true while capture is paused (shared/pause.ts). */
  CapturePaused = 'mnemo.capturePaused',
  /** 'ok' | 'warning' | 'error' from `mnemo/status` ('unknown' until the first one): the welcome views key off 'error'. */
  StoreHealth = 'mnemo.storeHealth',
  ChatAvailable = 'mnemo.chatAvailable',
  /** The workspace's projects hold no memory yet (counts.ts isEmptyWorkspace): the first-run welcome. */
  WorkspaceEmpty = 'mnemo.workspaceEmpty',
  /** A workspace folder has agent rules to import (AGENTS.md, CLAUDE.md, .cursor/rules…). */
  RulesFound = 'mnemo.rulesFound',
  /** The store holds memories of projects outside this workspace. */
  HasOtherProjects = 'mnemo.hasOtherProjects',
  /** The Review Queue / What My Agents Saw loaded and found nothing (their welcome; unset while loading). */
  ReviewEmpty = 'mnemo.reviewEmpty',
  LedgerEmpty = 'mnemo.ledgerEmpty',
  /** The active tab is a change Mnemo proposes (its title shows Write / Cancel). */
  ProposalFocused = 'mnemo.proposalFocused',
}
