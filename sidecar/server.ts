/**
 * Binds the memory service to a JSON-RPC connection: one handler per protocol request, errors mapped to
 * JSON-RPC error codes with one-sentence messages. Written against {@link RpcConnection} so tests can
 * drive it over any vscode-jsonrpc connection and the product runs it over stdio.
 */
import {
  ResponseError,
  type CancellationToken,
  type Disposable,
  type NotificationType,
  type RequestType,
} from 'vscode-jsonrpc';
import type { BackupProgress } from './backup/index';
import { BackupError, MnemoError, errorMessage } from './shared/errors';
import { refuseGlobal } from './ingest/input';
import * as P from './protocol';
import type { MnemoService } from './service';

export interface RpcConnection {
  onRequest<Params, Result>(
    type: RequestType<Params, Result, void>,
    handler: (params: Params, token: CancellationToken) => Result | Promise<Result>,
  ): Disposable;
  sendNotification<Params>(type: NotificationType<Params>, params: Params): Promise<void> | void;
}

/** Maps any thrown value to a ResponseError with a code from protocol.ts ErrorCodes. */
export function toResponseError(err: unknown): ResponseError<void> {
  if (err instanceof ResponseError) return err as ResponseError<void>;
  if (err instanceof BackupError)
    return new ResponseError(err.code, err.message, { reason: err.reason }) as unknown as ResponseError<void>;
  // One family: every typed error (embedding, invalid session, store, LLM, backup) is a MnemoError with its code.
  if (err instanceof MnemoError) return new ResponseError(err.code, err.message);
  return new ResponseError(P.ErrorCodes.Internal, `Mnemo hit an internal error: ${errorMessage(err)}`);
}

export function registerHandlers(
  conn: RpcConnection,
  svc: MnemoService,
  log: (line: string) => void,
): Disposable[] {
  const handle = <Params, Result>(
    type: RequestType<Params, Result, void>,
    fn: (p: Params, token: CancellationToken) => Promise<Result> | Result,
  ) =>
    conn.onRequest(type, async (params, token) => {
      try {
        return await fn(params, token);
      } catch (e) {
        const re = toResponseError(e);
        if (re.code === P.ErrorCodes.Internal)
          log(`${type.method} failed: ${(e as Error)?.stack ?? errorMessage(e)}`);
        throw re;
      }
    });
  const progress = (token: string | undefined) =>
    token
      ? (p: BackupProgress) => void conn.sendNotification(P.ProgressNotification, { token, ...p })
      : undefined;
  return [
    // A client never writes into global directly: only the audited promotion does.
    handle(P.CaptureSessionRequest, (p) => (refuseGlobal([p?.project_id]), svc.capture(p))),
    handle(P.IngestRequest, (p) => (refuseGlobal([p?.project_id]), svc.ingest(p))),
    handle(P.RememberRequest, (p) => (refuseGlobal([p?.project_id]), svc.remember(p))),
    handle(P.RulesImportRequest, (p) => svc.importRules(p)),
    handle(P.BulkImportRequest, (p, token) => {
      refuseGlobal(Array.isArray(p?.memories) ? p.memories.map((m) => m?.project_id) : []);
      return svc.bulkImport(
        p?.memories,
        p?.progress_token
          ? (done, total) =>
              void conn.sendNotification(P.ProgressNotification, {
                token: p.progress_token!,
                message: `Imported ${done} of ${total} memories`,
                percent: Math.round((done / Math.max(1, total)) * 100),
              })
          : undefined,
        token,
      );
    }),
    handle(P.RecallRequest, (p) => svc.recall(p)),
    handle(P.ListRequest, (p) => svc.list(p ?? {})),
    handle(P.CountsRequest, (p) => svc.counts(p ?? {})),
    handle(P.GetRequest, (p) => svc.get(p?.id)),
    handle(P.EvidenceRequest, (p) => svc.evidence(p)),
    handle(P.SearchRequest, (p) => svc.search(p)),
    handle(P.ConfirmRequest, (p) => svc.confirm(p)),
    handle(P.ConfirmFileRequest, (p) => svc.confirmFile(p)),
    handle(P.MarkWrongRequest, (p) => svc.markWrong(p)),
    handle(P.UpdateRequest, (p) => svc.update(p)),
    handle(P.PromoteRequest, (p) => svc.promote(p)),
    handle(P.DeleteRequest, async (p) => ({ deleted: await svc.delete(p?.ids, p?.by) })),
    handle(P.WipeProjectRequest, (p) => svc.wipeProject(p)),
    handle(P.StatsRequest, (p) => svc.stats(p?.project_id)),
    handle(P.AuditListRequest, (p) => ({ entries: svc.auditList(p ?? {}) })),
    handle(P.LedgerListRequest, (p) => svc.ledgerList(p ?? {})),
    handle(P.DecayRequest, (p) => svc.decay(p ?? {})),
    handle(P.CleanPreviewRequest, (p) => svc.cleanPreview(p ?? {})),
    handle(P.CleanRequest, async (p) => ({ changed: await svc.clean(p) })),
    handle(P.NoticesRequest, async (p) => ({ notices: await svc.notices(p ?? {}) })),
    handle(P.AckNoticesRequest, async (p) => ({ acknowledged: await svc.ackNotices(p) })),
    handle(P.ReembedRequest, (p, token) => svc.reembed(p ?? {}, token)),
    handle(P.BackupExportRequest, (p, token) => svc.backupExport(p, progress(p.progress_token), token)),
    handle(P.BackupInspectRequest, (p) => svc.backupInspect(p)),
    handle(P.BackupImportRequest, (p, token) => svc.backupImport(p, progress(p.progress_token), token)),
    handle(P.FlushQueueRequest, async (p) => ({ remaining: await svc.flush(p?.timeout_ms) })),
    handle(P.SourcesListRequest, (p) => svc.sourcesList(p)),
    handle(P.SourcesCaptureRequest, (p, token) =>
      svc.sourcesCapture(p, { onProgress: progress(p?.progress_token), token }),
    ),
    handle(P.SourcesConfigureRequest, (p) => svc.sourcesConfigure(p)),
    handle(P.ReviewApplyRequest, (p) => svc.reviewApply(p)),
    handle(P.ReviewUndoRequest, (p) => svc.reviewUndo(p)),
  ];
}
