import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * Which database servers a request's queries ran on, for its log line ("primary", "replica", both, or
 * none when it was answered from memory). Connections are taken deep below the routes (Kysely, the
 * replica routing of read-replicas.ts), so the request is followed by async context rather than
 * passed down: the HTTP layer opens a record per request (trackServedBy) and every connection taken
 * while it runs notes its server (noteServedBy). Outside a request (snapshot rebuilds, polls) there
 * is no record and nothing is noted.
 */
export type ServerRole = 'primary' | 'replica';

const current = new AsyncLocalStorage<Set<ServerRole>>();

/** Runs `work` (and everything it starts) with a fresh record; returns the record. */
export function trackServedBy(work: () => void): Set<ServerRole> {
  const record = new Set<ServerRole>();
  current.run(record, work);
  return record;
}

/**
 * Runs `work` inside an existing record again: the request body arrives by socket events, whose
 * callbacks run in the socket's async context, so the HTTP layer re-enters the record after it.
 */
export function resumeServedBy(record: Set<ServerRole>, work: () => void): void {
  current.run(record, work);
}

export function noteServedBy(role: ServerRole): void {
  current.getStore()?.add(role);
}

/** "primary", "replica", "primary+replica", or undefined when no query ran. */
export function describeServedBy(record: Set<ServerRole> | undefined): string | undefined {
  if (!record || record.size === 0) return undefined;
  return record.size === 2 ? 'primary+replica' : [...record][0];
}
