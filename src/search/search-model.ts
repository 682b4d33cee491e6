import type { Kysely } from 'kysely';
import type { ChangeSignal } from '../changes/change-signal.js';
import type { DB } from '../db/schema.js';
import type { LinkBuilder } from '../contract/links.js';
import { searchSnapshotBuildDuration } from '../metrics/instruments.js';
import { buildSnapshot, type Snapshot, type SnapshotOptions } from './snapshot.js';

/*
 * The in-memory read model of the catalogue search, one per API process. The database stays the
 * source of truth: the model only holds the last snapshot built from it, and every process builds
 * its own, so API processes stay stateless and scale out.
 *
 * A request takes current() once and works on that snapshot to the end; refresh() builds a new one
 * aside and swaps the reference, so a request never sees two catalogues. Refreshes coalesce: asked
 * while one runs, exactly one more runs after it (whatever the number of asks), which then reads
 * everything committed before it started.
 *
 * Following the catalogue: with `changes`, every catalogue signal (and every resync after a lost
 * listener) asks for a refresh, and requests take `latest()`: the snapshot, once it holds every
 * version signalled so far. A request arriving between an import's signal and the swap waits for the
 * swap (at most FRESHNESS_WAIT_MS, then it is served from the previous snapshot), so GET /projects
 * and GET /units/{id} agree with the endpoints that read the database, from the signal on.
 */
export interface SearchModelOptions {
  links: LinkBuilder;
  /** Keep GET /projects/{id}'s nearby block in each snapshot (NEARBY_IN_MEMORY; default off). */
  nearbyInMemory?: boolean;
  /** The database serves several connections (PostgreSQL, not PGlite): see SnapshotOptions. */
  concurrentReads?: boolean;
  /** A build's second read failed and it read in turn (SnapshotOptions.onConcurrentReadFailed). */
  onConcurrentReadFailed?: (error: unknown) => void;
  changes?: Pick<ChangeSignal, 'subscribe' | 'catalogueVersion'>;
  /** A refresh asked for by a signal failed (the previous snapshot stays in service). */
  onError?: (error: unknown) => void;
  /**
   * Where a refresh reads (default: the `db` given to create). With read replicas: a replica that has
   * replayed every commit made before the refresh, else the primary (readerAfterLatestCommit).
   */
  readFrom?: () => Promise<Kysely<DB>>;
}

/** How long a request waits for a refresh already asked for, before it is served the older snapshot. */
export const FRESHNESS_WAIT_MS = 5_000;

export class SearchModel {
  private snapshot: Snapshot;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  private constructor(
    private readonly db: Kysely<DB>,
    private readonly options: SearchModelOptions,
    first: Snapshot,
  ) {
    this.snapshot = first;
  }

  /** Builds the first snapshot; the process should not listen before this resolves. */
  static async create(db: Kysely<DB>, options: SearchModelOptions): Promise<SearchModel> {
    const model = new SearchModel(db, options, await timedBuild(db, snapshotOptions(options, 1)));
    options.changes?.subscribe((change) => {
      if (change.kind === 'access') return;
      model.refresh().catch((error: unknown) => options.onError?.(error));
    });
    // A change committed while the first snapshot was being built is caught up with here.
    if (options.changes && options.changes.catalogueVersion > model.snapshot.catalogueVersion) await model.refresh();
    return model;
  }

  current(): Snapshot {
    return this.snapshot;
  }

  /** The snapshot once it holds every catalogue version signalled so far (see above). */
  latest(): Promise<Snapshot> {
    return this.atLeast(this.options.changes?.catalogueVersion ?? 0);
  }

  /**
   * The snapshot once it holds catalogue version `wanted` (at most FRESHNESS_WAIT_MS, as latest()).
   * For a version read from the database before its signal reached this process: GET /changes lists a
   * change and a client fetches GET /units/{id} at once; the feed waits until this process's snapshot
   * holds what it lists, so the detail asked next of this process is the one the feed announced.
   */
  async atLeast(wanted: number): Promise<Snapshot> {
    if (this.snapshot.catalogueVersion >= wanted) return this.snapshot;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.catchUp(wanted), new Promise<void>((resolve) => (timer = setTimeout(resolve, FRESHNESS_WAIT_MS)))]);
    clearTimeout(timer);
    return this.snapshot;
  }

  /**
   * Until the snapshot holds `wanted`. The signal of `wanted` (signals follow commits) has already asked
   * for the build that will hold it: the one queued, or else the one running, which then started after
   * the signal. That build is awaited: asking refresh() straight away queued a second full build behind
   * it for the requests arriving before the swap. Only if it still falls short (it failed, or the
   * version came by another way) is another asked for.
   */
  private async catchUp(wanted: number): Promise<void> {
    const asked = this.queued ?? this.running;
    if (asked) await asked.catch(() => undefined);
    if (this.snapshot.catalogueVersion < wanted) await this.refresh().catch(() => undefined);
  }

  /**
   * Whether a change past `snapshot` has been signalled (latest() gave up waiting for its build, or the
   * build failed): what is kept with the snapshot is then not sent; the answer is made anew, and
   * the detail routes read the database, which is ahead.
   */
  isBehind(snapshot: Snapshot): boolean {
    return (this.options.changes?.catalogueVersion ?? 0) > snapshot.catalogueVersion;
  }

  /** Number of snapshots built so far (1 after create); grows by one with every completed refresh. */
  get version(): number {
    return this.snapshot.generation;
  }

  get builtAt(): Date {
    return this.snapshot.builtAt;
  }

  /**
   * Rebuilds from the database and swaps. Resolves once a snapshot that started after this call is
   * being served; rejects when that build failed (the previous snapshot then stays in service).
   */
  refresh(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    // One is running: it may have read the catalogue before the change that prompted this call.
    this.queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.rebuild().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async rebuild(): Promise<void> {
    const db = this.options.readFrom ? await this.options.readFrom() : this.db;
    const next = await timedBuild(db, snapshotOptions(this.options, this.snapshot.generation + 1));
    this.snapshot = next;
  }
}

/** The model's options as each of its builds takes them. */
function snapshotOptions(options: SearchModelOptions, generation: number): SnapshotOptions {
  const { links, nearbyInMemory, concurrentReads, onConcurrentReadFailed } = options;
  return { links, nearbyInMemory, concurrentReads, onConcurrentReadFailed, generation };
}

/** buildSnapshot, timed for catalogue_search_snapshot_build_duration_seconds. */
async function timedBuild(...args: Parameters<typeof buildSnapshot>): Promise<Snapshot> {
  const done = searchSnapshotBuildDuration.startTimer();
  try {
    const snapshot = await buildSnapshot(...args);
    done({ outcome: 'success' });
    return snapshot;
  } catch (error) {
    done({ outcome: 'failed' });
    throw error;
  }
}
