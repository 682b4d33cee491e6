import { changeSignalReconnects } from '../metrics/instruments.js';
import type { Database } from '../db/database.js';
import { CHANGE_CHANNEL, parseChange, type Change } from './change-kinds.js';

/*
 * This process's view of committed changes: the catalogue version and a stream of change signals
 * (src/changes/change-kinds.ts), fed by the database's notifications. Whatever a process derives from
 * the database and keeps (the key cache, the search read model) subscribes here and drops or rebuilds
 * it; nothing else is shared between instances.
 *
 * `listening` is false while the notifications cannot be trusted (the listening connection is lost
 * and being re-established): caches must then not be used, since a change could go unseen. When the
 * listener is back, subscribers get `resync` with the version read again.
 */
export interface ChangeSignal {
  /** The newest catalogue version this process knows of. */
  readonly catalogueVersion: number;
  readonly listening: boolean;
  /** Calls `listener` for every change from now on; returns the unsubscribe function. */
  subscribe(listener: (change: Change) => void): () => void;
  close(): Promise<void>;
}

export interface ChangeSignalOptions {
  /** Where a failing subscriber or a failed version read is reported. */
  onError?: (error: unknown, context: string) => void;
}

const FIRST_LISTEN_WAIT_MS = 5_000;

export async function readCatalogueVersion(database: Database): Promise<number> {
  // On the primary: with read replicas, a lagging one would hide the version reached meanwhile.
  const row = await database.primary.selectFrom('catalogue_state').select('version').where('id', '=', 1).executeTakeFirst();
  return row?.version ?? 0;
}

export async function openChangeSignal(database: Database, options: ChangeSignalOptions = {}): Promise<ChangeSignal> {
  const onError = options.onError ?? (() => {});
  const subscribers = new Set<(change: Change) => void>();
  let version = await readCatalogueVersion(database);
  let listening = false;
  let everUp = false;
  let firstUp: () => void = () => {};
  const started = new Promise<void>((resolve) => (firstUp = resolve));

  const emit = (change: Change) => {
    for (const subscriber of subscribers) {
      try {
        subscriber(change);
      } catch (error) {
        onError(error, 'change subscriber');
      }
    }
  };

  const listener = await database.listen(CHANGE_CHANNEL, {
    notification(payload) {
      const change = parseChange(payload);
      if (!change) return;
      if (change.kind === 'catalogue') {
        if (change.version <= version) return;
        version = change.version;
      }
      emit(change);
    },
    up() {
      listening = true;
      const reconnected = everUp;
      everUp = true;
      firstUp();
      // Missed notifications are lost for good: after a reconnect everything is dropped at once; then
      // (also on the first connect, which may come after the version was read) the version that was
      // reached meanwhile is read, now that no later change can be missed.
      if (reconnected) {
        changeSignalReconnects.inc();
        emit({ kind: 'resync', version });
      }
      readCatalogueVersion(database).then(
        (current) => {
          if (current <= version) return;
          version = current;
          emit({ kind: 'resync', version });
        },
        (error) => onError(error, 'catalogue version after reconnecting'),
      );
    },
    down(error) {
      listening = false;
      onError(error, 'change listener lost; caches bypassed until it is back');
    },
  });

  // Serving starts once listening, or after a while without (caches are bypassed until it is up).
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([started, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_LISTEN_WAIT_MS)))]);
  clearTimeout(timer);

  return {
    get catalogueVersion() {
      return version;
    },
    get listening() {
      return listening;
    },
    subscribe(subscriber) {
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    close: () => listener.close(),
  };
}
