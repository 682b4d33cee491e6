import { createHash } from 'node:crypto';
import type pg from 'pg';

/*
 * Named prepared statements for the PostgreSQL pool.
 *
 * Kysely sends every query as an unnamed statement, so PostgreSQL parses and plans it again on every
 * call. The catalogue's reads are few shapes with many nested JSON subqueries: measured on the bench
 * catalogue, parse + plan took 2.5–3.5 ms of a GET /units/{id} whose execution took 0.3 ms. Naming the
 * statement by a hash of its text lets each connection parse it once and, after a few executions,
 * reuse a generic plan (plan_cache_mode auto keeps custom plans where they estimate much cheaper).
 *
 * The names are bounded: a statement is only named while fewer than MAX_NAMED distinct texts have
 * been seen, so a client sending ever new filter combinations cannot grow the per-connection plan
 * caches without limit; later texts run unnamed, as before. Statements without parameters (BEGIN,
 * COMMIT, SET …) are cheap to plan and stay unnamed.
 */
export const MAX_NAMED = 500;

/*
 * A statement starting with this comment is planned on every call (left unnamed). GET /projects runs
 * far longer than it takes to plan, and its plan depends on the values: with them, PostgreSQL folds
 * the price bounds to constants and walks units_project_filter on (project_id, bedrooms, price); a
 * generic plan could only filter bedrooms row by row (measured on the L catalogue: 35 ms generic,
 * 23 ms custom for the typical filters).
 */
export const PLAN_EACH_TIME = '/* plan each time */ ';

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

/** Makes `client.query(text, values)` use a named statement; every other form of call is left as is. */
export function namePreparedStatements(client: pg.PoolClient, names: StatementNames): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const named = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0 && !text.startsWith(PLAN_EACH_TIME)) {
      const name = names.nameFor(text);
      if (name) return query({ name, text, values });
    }
    return query(...args);
  };
  client.query = named as Query;
}
