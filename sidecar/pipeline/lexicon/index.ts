/**
 * The pipeline's lexicons: one table per signal, each with what it catches and an example. The stages
 * compose them (rules.ts keeps and drops sentences with them, normalize.ts counts substantive lines).
 * Data only, no I/O. Each file cites the requirement in docs/design.md that its tables serve.
 */
export * from './smallTalk';
export * from './requests';
export * from './doubt';
export * from './persona';
export * from './instructions';
export * from './events';
export * from './claims';
export * from './verbs';
export * from './values';
export * from './references';
export * from './life';
export * from './chatter';
export * from './agentTasks';
export * from './injection';
