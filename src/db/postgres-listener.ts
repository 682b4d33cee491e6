import pg from 'pg';

/*
 * LISTEN on a connection of its own (a pooled connection cannot hold a LISTEN: it goes back to the
 * pool between queries). The connection can be lost (server restart, failover, an operator's
 * pg_terminate_backend, a network cut that leaves it half-open); notifications sent meanwhile are
 * lost with it. So the listener says when it is down and when it is back, and the caller treats
 * "back" as "anything may have changed". It reconnects by itself with a capped backoff, and a
 * heartbeat query notices a half-open connection that TCP would report only after hours.
 */
export interface ListenHandlers {
  notification(payload: string): void;
  /** Listening (again): notifications from now on are delivered. */
  up(): void;
  /** Not listening: notifications may be missed until `up` is called again. */
  down(error: Error): void;
}

export interface Listener {
  close(): Promise<void>;
}

/** Shown in pg_stat_activity, so that operators (and tests) can find the listening connection. */
export const LISTENER_APPLICATION_NAME = 'catalogue-listener';

const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 2_000;
const BACKOFF_MS = [50, 100, 250, 500, 1_000];

export function listenOnPostgres(connectionString: string, channel: string, handlers: ListenHandlers): Listener {
  let closed = false;
  let client: pg.Client | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let isUp = false;

  const lost = (error: Error) => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
    const dead = client;
    client = undefined;
    dead?.removeAllListeners('notification');
    dead?.end().catch(() => {});
    if (isUp) handlers.down(error);
    isUp = false;
    if (closed) return;
    const delay = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
    failures += 1;
    retry = setTimeout(connect, delay);
  };

  const connect = async () => {
    retry = undefined;
    if (closed) return;
    const next = new pg.Client({ connectionString, application_name: LISTENER_APPLICATION_NAME, keepAlive: true, connectionTimeoutMillis: 3_000 });
    client = next;
    let failed = false;
    const fail = (error: Error) => {
      if (failed || client !== next) return;
      failed = true;
      lost(error);
    };
    next.on('error', fail);
    next.on('end', () => fail(new Error('the listening connection ended')));
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) handlers.notification(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      fail(error as Error);
      return;
    }
    if (closed || client !== next) {
      next.end().catch(() => {});
      return;
    }
    failures = 0;
    isUp = true;
    handlers.up();
    heartbeat = setInterval(() => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('the listening connection does not answer')), HEARTBEAT_TIMEOUT_MS);
      });
      Promise.race([next.query('SELECT 1'), timeout])
        .catch((error: Error) => fail(error))
        .finally(() => clearTimeout(timer));
    }, HEARTBEAT_MS);
    heartbeat.unref();
  };

  void connect();

  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (heartbeat) clearInterval(heartbeat);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
