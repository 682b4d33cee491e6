import { statfsSync } from 'node:fs';
import { PGliteWorkerClient } from './pglite-client.js';
import type { ListenHandlers } from './postgres-listener.js';

/*
 * The embedded engine, kept in service. PostgreSQL stops on a PANIC (e.g. a WAL write that finds the
 * disk full) and its postmaster restarts it from the files on disk; PGlite has no postmaster: after a
 * PANIC the engine in memory stays half-aborted and answers every later statement with another PANIC
 * (`cannot drop active portal ""`), so every database-backed request failed until the process was
 * restarted. Here a PANIC or FATAL, or the worker dying, retires that engine at once: queries answer
 * EmbeddedDatabaseFailed (503 with Retry-After, src/db/errors.ts; /health 503) and a new engine is
 * opened on the same directory, retried every REOPEN_RETRY_MS until it starts (it replays the WAL, so
 * what was committed is there and the transaction that failed is not). An in-memory database cannot
 * be reopened (its contents are gone with the engine) and stays failed.
 */

/** Every statement fails with this while no usable engine is open; its message names the cause. */
export class EmbeddedDatabaseFailed extends Error {
  override name = 'EmbeddedDatabaseFailed';
}

export const REOPEN_RETRY_MS = 1_000;
/** One WAL segment: with less free than this where the engine writes, a PANIC is a write that found no space. */
const LOW_SPACE_BYTES = 16 * 1024 * 1024;
const NO_SPACE = /no space left on device|ENOSPC/i;

type Result = { rows: unknown[]; affectedRows?: number };
export type EngineEvent = { level: 'error' | 'warn' | 'info'; message: string };

/** The engine left unusable (not a statement's own error): PANIC or FATAL severity, or the worker gone. */
function retiresEngine(error: unknown, client: PGliteWorkerClient): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return severity === 'PANIC' || severity === 'FATAL' || !client.alive;
}

/** One line: the cause as an operator can act on it (a full disk named as such), and what the engine said. */
export function describeEngineFailure(dataDir: string | undefined, error: Error, noSpaceSeen?: Error): string {
  const said = noSpaceSeen && noSpaceSeen !== error ? `${noSpaceSeen.message}; then ${error.message}` : error.message;
  let free: number | undefined;
  try {
    if (dataDir) {
      const stats = statfsSync(dataDir);
      free = stats.bavail * stats.bsize;
    }
  } catch {
    // The directory unreadable: the engine's own message is all there is.
  }
  const freeText = free === undefined ? '' : `, ${(free / 1024 / 1024).toFixed(1)} MB free where it writes`;
  if (NO_SPACE.test(said) || (free !== undefined && free < LOW_SPACE_BYTES)) return `no space left on device (ENOSPC${freeText}): ${said}`;
  return said;
}

export class SupervisedPGlite {
  #client: PGliteWorkerClient;
  #failure: EmbeddedDatabaseFailed | undefined;
  /** A statement's "no space left on device" error: the cause of a PANIC that follows it. */
  #noSpaceSeen: Error | undefined;
  #closed = false;
  readonly #listeners = new Map<string, Set<ListenHandlers>>();

  private constructor(
    client: PGliteWorkerClient,
    private readonly dataDir: string | undefined,
    private readonly onEvent: (event: EngineEvent) => void,
    private readonly retryMs: number,
  ) {
    this.#client = client;
  }

  static async open(options: { dataDir?: string; loadDataDir?: Blob; onEvent?: (event: EngineEvent) => void; retryMs?: number }): Promise<SupervisedPGlite> {
    const client = await PGliteWorkerClient.open(options);
    return new SupervisedPGlite(client, options.dataDir, options.onEvent ?? (() => {}), options.retryMs ?? REOPEN_RETRY_MS);
  }

  /** An engine is open and not known to be broken (it may be busy with a long import). */
  /** Queries sent to the engine and not answered yet (metrics: src/service/service-gauges.ts). */
  get pendingQueries(): number {
    return this.#client.pendingQueries;
  }

  get usable(): boolean {
    return this.#failure === undefined && this.#client.alive;
  }

  async query(sql: string, params: unknown[] = []): Promise<Result> {
    if (this.#failure) throw this.#failure;
    const client = this.#client;
    try {
      return await client.query(sql, params);
    } catch (error) {
      if (error instanceof Error && NO_SPACE.test(error.message)) this.#noSpaceSeen = error;
      if (client !== this.#client || !retiresEngine(error, client)) throw error;
      // Retired once: the statements that were queued on it fail with the same cause.
      throw this.#failure ?? this.#retire(error as Error);
    }
  }

  async listen(channel: string, handlers: ListenHandlers): Promise<() => void> {
    let set = this.#listeners.get(channel);
    if (!set) this.#listeners.set(channel, (set = new Set()));
    set.add(handlers);
    const stop = await this.#client.listen(channel, handlers.notification);
    return () => {
      set.delete(handlers);
      stop();
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#client.close();
  }

  #retire(error: Error): EmbeddedDatabaseFailed {
    const recoverable = this.dataDir !== undefined;
    const cause = describeEngineFailure(this.dataDir, error, this.#noSpaceSeen);
    this.#failure = new EmbeddedDatabaseFailed(
      `the embedded database failed: ${cause}; ${recoverable ? 'it is reopened on its data directory as soon as it starts' : 'an in-memory database cannot be reopened'}`,
      { cause: error },
    );
    this.#noSpaceSeen = undefined;
    this.onEvent({ level: 'error', message: this.#failure.message });
    const broken = this.#client;
    void broken.abandon();
    for (const handlers of this.#allHandlers()) handlers.down(this.#failure);
    if (recoverable) setTimeout(() => void this.#reopen(), 0).unref();
    return this.#failure;
  }

  async #reopen(): Promise<void> {
    if (this.#closed) return;
    let next: PGliteWorkerClient | undefined;
    try {
      next = await PGliteWorkerClient.open({ dataDir: this.dataDir });
      for (const [channel, set] of this.#listeners) for (const handlers of set) await next.listen(channel, handlers.notification);
    } catch (error) {
      await next?.abandon();
      this.onEvent({ level: 'warn', message: `the embedded database cannot be reopened yet (retried in ${this.retryMs / 1000} s): ${describeEngineFailure(this.dataDir, error as Error)}` });
      setTimeout(() => void this.#reopen(), this.retryMs).unref();
      return;
    }
    if (this.#closed) return void (await next.close());
    this.#client = next;
    this.#failure = undefined;
    this.onEvent({ level: 'info', message: 'the embedded database is reopened and serves again' });
    for (const handlers of this.#allHandlers()) handlers.up();
  }

  *#allHandlers(): Iterable<ListenHandlers> {
    for (const set of this.#listeners.values()) yield* set;
  }
}
