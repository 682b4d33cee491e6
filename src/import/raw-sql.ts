import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * The import's statements are SQL text generated from table descriptions (column lists, VALUES rows,
 * SET clauses), with id lists bound as one array parameter each; these run such text in the caller's
 * transaction, and cut long lists into batches so that no statement outgrows the parameter limits.
 */

export async function query<R>(db: Kysely<DB>, text: string, params: unknown[]): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, params))).rows;
}

/** Runs a statement; the result tells how many rows it affected. */
export function execute(db: Kysely<DB>, text: string, params: unknown[]): Promise<QueryResult<unknown>> {
  return db.executeQuery(CompiledQuery.raw(text, params));
}

export function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
