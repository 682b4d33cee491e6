import { Worker } from 'node:worker_threads';

/*
 * The embedded PGlite database, run in a worker thread and spoken to by messages. PGlite executes
 * PostgreSQL compiled to WebAssembly in the thread that calls it: in the API's event loop, a 100 ms
 * query stalled every other request, health checks included, for 100 ms. In a worker the API thread
 * keeps parsing, authenticating and serializing while a query runs. PGlite serves one query at a time
 * either way (Kysely's PGlite driver hands out its single connection in turn).
 *
 * It offers the two methods of PGlite that kysely-pglite-dialect calls: query() and close().
 */

interface Pending {
  resolve: (result: { rows: unknown[]; affectedRows?: number }) => void;
  reject: (error: Error) => void;
}

type Reply =
  | { type?: undefined; id: number; rows?: unknown[]; affectedRows?: number; error?: Record<string, unknown> }
  | { type: 'notification'; channel: string; payload: string };

/** An Error rebuilt from the worker's plain copy, with the PostgreSQL fields (code, constraint, …). */
function rebuiltError(fields: Record<string, unknown>): Error {
  const error = new Error(String(fields.message));
  Object.assign(error, fields);
  return error;
}

export class PGliteWorkerClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  #nextId = 1;
  /** Set once the worker is gone (closed, crashed or exited): every later call fails with it at once. */
  #stopped: Error | undefined;
  #closing: Promise<void> | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: Reply) => {
      if (reply.type === 'notification') {
        for (const listener of this.#listeners.get(reply.channel) ?? []) listener(reply.payload);
        return;
      }
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      if (reply.error) pending.reject(rebuiltError(reply.error));
      else pending.resolve({ rows: reply.rows ?? [], affectedRows: reply.affectedRows });
    });
    const fail = (error: Error) => {
      this.#stopped ??= error;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the embedded database stopped')));
  }

  /** Starts the worker and opens the database; rejects with the reason when it cannot be opened. */
  static async open(options: { dataDir?: string; loadDataDir?: Blob }): Promise<PGliteWorkerClient> {
    const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), {
      workerData: { dataDir: options.dataDir, loadDataDir },
      transferList: loadDataDir ? [loadDataDir] : [],
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: { type?: string; error?: Record<string, unknown> }) => {
        if (message.type === 'ready') done(resolve);
        else if (message.type === 'init-error') done(() => reject(rebuiltError(message.error ?? {})));
      };
      const onError = (error: Error) => done(() => reject(error));
      const onExit = (code: number) => done(() => reject(new Error(`the embedded database worker exited with code ${code}`)));
      const done = (settle: () => void) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        settle();
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return new PGliteWorkerClient(worker);
  }

  /** The worker runs (it may be busy with a long statement or transaction: an import holds it for a minute on L). */
  get alive(): boolean {
    return this.#stopped === undefined;
  }

  query(sql: string, params: unknown[] = []): Promise<{ rows: unknown[]; affectedRows?: number }> {
    return this.#send({ type: 'query', sql, params });
  }

  /** LISTEN on `channel`; the callback gets each payload, after the commit, before the writer's reply. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => void> {
    let listeners = this.#listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
      await this.#send({ type: 'listen', channel });
    }
    listeners.add(callback);
    return () => listeners.delete(callback);
  }

  /** Stops the worker without closing the engine (it is broken: nothing of its memory may reach the disk). */
  async abandon(): Promise<void> {
    this.#stopped ??= new Error('the embedded database was abandoned');
    await this.#worker.terminate();
  }

  /** Closes the database and stops the worker; later and concurrent calls share the first close. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        if (!this.#stopped) await this.#send({ type: 'close' });
      } finally {
        this.#stopped ??= new Error('the embedded database is closed');
        await this.#worker.terminate();
      }
    })();
    return this.#closing;
  }

  #send(message: Record<string, unknown>): Promise<{ rows: unknown[]; affectedRows?: number }> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ ...message, id });
      } catch (error) {
        // A parameter that cannot be copied to the worker (e.g. an object holding a function).
        this.#pending.delete(id);
        reject(error as Error);
      }
    });
  }
}
