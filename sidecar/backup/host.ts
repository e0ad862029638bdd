/** What backup needs from the memory service (MnemoService satisfies it); tests may pass their own. */
import type { SidecarConfig } from '../config';
import type { EmbeddingProvider } from '../embed/types';
import type { AuditLog } from '../lifecycle/audit';
import type { MemoryStore } from '../store/memoryStore';

export interface BackupHost {
  readonly store: MemoryStore;
  readonly audit: AuditLog;
  readonly config: SidecarConfig;
  /** The embedding provider, used to re-embed when a backup's model differs from the store's. */
  readonly embedding: EmbeddingProvider;
  /** Resolves when the model is loaded and matches the store's active collection (which it creates). */
  requireModel(): Promise<void>;
  /** Tells the extension which projects changed (tree refresh) and refreshes the status counts. */
  notifyChanged(projectIds: string[], ids?: string[]): void;
}
