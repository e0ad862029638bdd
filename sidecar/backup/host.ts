/**
 * What backup needs from the memory service: a slice of the shared context (sidecar/core.ts), which
 * MnemoService implements; tests may pass their own.
 */
import type { Core } from '../core';

export type BackupHost = Pick<
  Core,
  'store' | 'episodes' | 'audit' | 'config' | 'embedding' | 'requireModel' | 'notifyChanged'
>;
