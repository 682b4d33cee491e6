import type { CompiledQuery, Compilable, Kysely, RawBuilder } from 'kysely';
import { sql } from 'kysely';
import { PREPARED } from './prepared-statements.js';

/*
 * A query built and compiled once, then run with new values.
 *
 * Building a Kysely query with nested JSON subqueries and compiling it costs more CPU than PostgreSQL
 * spends executing it (measured on GET /units/{id}: about half of the API process's time went to
 * query building). The catalogue's queries have one shape whatever the request; only the values
 * change. So the builder runs once per database with stand-ins for the values; the stand-ins come out
 * of the compiler as parameters ($1, $2, …), and each call fills those positions with its own values.
 * Any other parameter (a constant such as `is_draft = false`) is kept as compiled.
 *
 * A fragment is a piece of SQL that differs between calls (the filters of GET /projects): its place
 * is marked in the cached text, and each call compiles only the fragment (raw SQL, cheap) and splices
 * it in, its parameters numbered after the cached ones.
 *
 * A builder handed to preparedQuery must not branch on its values, nor inline them into the SQL text
 * (sql.raw, sql.lit): the first build checks that every stand-in became a parameter and throws if not.
 */

const MARK = '\u0000param:';
const fragmentMark = (name: string) => `/*@fragment:${name}@*/`;

class StandIn {
  constructor(readonly name: string) {}
  /** A stand-in turned into text (e.g. String(priceVector)) still names itself. */
  toString(): string {
    return `${MARK}${this.name}`;
  }
}

function standInName(value: unknown): string | undefined {
  if (value instanceof StandIn) return value.name;
  if (typeof value === 'string' && value.startsWith(MARK)) return value.slice(MARK.length);
  return undefined;
}

type Slot = { name: string } | { value: unknown };

export interface RunOptions {
  /**
   * Let PostgreSQL keep the statement and reuse its plan (a named prepared statement, see
   * prepared-statements.ts). Default: only queries without fragments, whose text is always the same.
   * A query with fragments has as many texts as filter combinations, and often values that shape its
   * plan: with them PostgreSQL folds the price bounds and bedroom counts of GET /projects into index
   * conditions, which a generic plan cannot (docs/performance.md, "Named prepared statements").
   */
  reusePlan?: boolean;
}

interface Prepared {
  compiled: CompiledQuery;
  /** The SQL text around the fragments, in text order (fragments.length + 1 parts). */
  parts: string[];
  fragments: string[];
  slots: Slot[];
}

export function preparedQuery<P extends object, DB, R>(
  build: (db: Kysely<DB>, params: P) => Compilable<R>,
  names: readonly (keyof P & string)[],
  fragmentNames: readonly (keyof P & string)[] = [],
): (db: Kysely<DB>, params: P, options?: RunOptions) => Promise<R[]> {
  const cache = new WeakMap<Kysely<DB>, Prepared>();
  const prepare = (db: Kysely<DB>): Prepared => {
    const standIns = Object.fromEntries([
      ...names.map((name) => [name, new StandIn(name)]),
      ...fragmentNames.map((name) => [name, sql.raw(fragmentMark(name))]),
    ]) as unknown as P;
    const compiled = build(db, standIns).compile();
    const slots: Slot[] = compiled.parameters.map((value) => {
      const name = standInName(value);
      return name === undefined ? { value } : { name };
    });
    const missing = names.filter((name) => !slots.some((slot) => 'name' in slot && slot.name === name));
    if (missing.length || compiled.sql.includes(MARK)) {
      throw new Error(`preparedQuery: ${missing.join(', ') || 'a value'} did not become a query parameter`);
    }
    const fragments = fragmentNames
      .map((name) => ({ name, at: compiled.sql.indexOf(fragmentMark(name)) }))
      .sort((a, b) => a.at - b.at);
    const parts: string[] = [];
    let from = 0;
    for (const { name, at } of fragments) {
      if (at < 0 || compiled.sql.indexOf(fragmentMark(name), at + 1) >= 0) throw new Error(`preparedQuery: fragment ${name} must appear exactly once`);
      parts.push(compiled.sql.slice(from, at));
      from = at + fragmentMark(name).length;
    }
    parts.push(compiled.sql.slice(from));
    return { compiled, parts, fragments: fragments.map((f) => f.name), slots };
  };

  return async (db, params, options = {}) => {
    let prepared = cache.get(db);
    if (!prepared) cache.set(db, (prepared = prepare(db)));
    const values = params as Record<string, unknown>;
    const parameters = prepared.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
    const reusePlan = options.reusePlan ?? prepared.fragments.length === 0;
    let text = reusePlan ? PREPARED + prepared.parts[0] : prepared.parts[0];
    prepared.fragments.forEach((name, i) => {
      const fragment = (values[name] as RawBuilder<unknown>).compile(db);
      const offset = parameters.length;
      // Fragments are built from sql`` templates with every value a parameter: no literal holds a `$`.
      text += fragment.sql.replace(/\$(\d+)/g, (_, n: string) => `$${offset + Number(n)}`) + prepared.parts[i + 1];
      parameters.push(...fragment.parameters);
    });
    const result = await db.executeQuery<R>({ ...prepared.compiled, sql: text, parameters } as CompiledQuery<R>);
    return result.rows;
  };
}
