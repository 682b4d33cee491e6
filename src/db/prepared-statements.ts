import { createHash } from 'node:crypto';
import type pg from 'pg';

/*
 * Named prepared statements for the PostgreSQL pool.
 *
 * Kysely sends every query as an unnamed statement, so PostgreSQL parses and plans it again on every
 * call. The catalogue's reads are few shapes with many nested JSON subqueries, whose parse and plan
 * cost several times their execution (docs/performance.md, "Named prepared statements"). Naming the
 * statement by a hash of its text lets each connection parse it once and, after a few executions,
 * reuse a generic plan (plan_cache_mode auto keeps custom plans where they estimate much cheaper).
 *
 * Naming is opt-in: only texts starting with PREPARED are named, and preparedQuery (prepared-query.ts)
 * puts it only on statements of a fixed shape. Each named statement keeps a cached plan in every
 * backend that ran it (docs/performance.md, "Named prepared statements"), so texts that vary with
 * the request (the filters of GET /projects) must not be named: 256 near_* subsets alone would fill
 * the backends' memory. MAX_NAMED bounds the names in case a caller gets that wrong; texts beyond it
 * run unnamed.
 */
export const PREPARED = '/* prepared */ ';
export const MAX_NAMED = 100;

type Query = pg.PoolClient['query'];

export class StatementNames {
  readonly #names = new Map<string, string>();

  nameFor(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < MAX_NAMED) {
      name = `k${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.#names.set(text, name);
    }
    return name;
  }

  get size(): number {
    return this.#names.size;
  }
}

/** Makes `client.query(text, values)` of a PREPARED text use a named statement; any other call is left as is. */
export function namePreparedStatements(client: pg.PoolClient, names: StatementNames): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const named = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && text.startsWith(PREPARED) && Array.isArray(values) && values.length > 0) {
      const name = names.nameFor(text);
      if (name) return query({ name, text, values });
    }
    return query(...args);
  };
  client.query = named as Query;
}
