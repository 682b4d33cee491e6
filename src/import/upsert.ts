import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { chunks } from './raw-sql.js';

/*
 * How a bundle record becomes a stored row: one multi-row upsert per batch, whose SET clause decides
 * what an update keeps. The rules (the import's contract, docs/bundle.md) live in that clause:
 *
 * A record states the whole row: an optional field that is left out (or null) puts the column back to
 * its default, so the stored row equals the bundle record whatever was there before.
 *
 * Timestamps: a given created_at/updated_at is stored as is. When not given, created_at is the import
 * time on insert and is kept on update, and updated_at is the import time on insert and on update.
 * Importing the same bundle twice therefore gives the same state for everything the API shows, except
 * that updated_at moves on rows whose bundle record does not give it.
 */

/** Cell value: the column's default (null or the DDL default; null and undefined mean the same). */
export const DEFAULT = Symbol('DEFAULT');
/** Cell value: now(), the transaction's timestamp, the same for every row of the import. */
export const NOW = Symbol('NOW');
type Row = Record<string, unknown>;

export interface Table {
  name: keyof DB & string;
  /** The conflict target of the upsert. */
  key: readonly string[];
  /** Every column written, key included. Columns not listed (e.g. clients.notes) are never touched. */
  columns: readonly string[];
}

const ROWS_PER_STATEMENT = 1000;
// PostgreSQL takes up to 65,535 parameters, but PGlite's protocol parser reads the parameter count of
// a statement as a signed 16-bit number: above 32,767 it fails with "RangeError: Invalid array length".
const MAX_PARAMETERS = 32_767;

/**
 * `INSERT ... VALUES (...), (...) ON CONFLICT (key) DO UPDATE SET` every column, in batches. Rows are
 * grouped by which timestamps they give, because that decides the SET clause (see the file comment).
 */
export async function upsert(db: Kysely<DB>, table: Table, rows: Row[], returning?: string): Promise<Row[]> {
  const returned: Row[] = [];
  const rowsPerStatement = Math.min(ROWS_PER_STATEMENT, Math.floor(MAX_PARAMETERS / table.columns.length));
  for (const group of groupByGivenTimestamps(table, rows)) {
    const set = updateSet(table, group.createdGiven, group.updatedGiven);
    for (const batch of chunks(group.rows, rowsPerStatement)) {
      const params: unknown[] = [];
      const values = batch.map((row) => `(${table.columns.map((column) => cell(row[column], params)).join(', ')})`);
      const text =
        `INSERT INTO ${table.name} AS t (${table.columns.map(quote).join(', ')}) VALUES ${values.join(', ')} ` +
        `ON CONFLICT (${table.key.map(quote).join(', ')}) DO UPDATE SET ${set}` +
        (returning ? ` RETURNING ${quote(returning)}` : '');
      const result = await db.executeQuery<Row>(CompiledQuery.raw(text, params));
      returned.push(...result.rows);
    }
  }
  return returned;
}

function cell(value: unknown, params: unknown[]): string {
  if (value === undefined || value === null || value === DEFAULT) return 'DEFAULT';
  if (value === NOW) return 'now()';
  params.push(value);
  return `$${params.length}`;
}

export const quote = (identifier: string) => `"${identifier}"`;

function groupByGivenTimestamps(table: Table, rows: Row[]) {
  const hasTimestamps = table.columns.includes('updated_at');
  const groups = new Map<string, { createdGiven: boolean; updatedGiven: boolean; rows: Row[] }>();
  for (const row of rows) {
    const createdGiven = hasTimestamps && row.created_at != null;
    const updatedGiven = hasTimestamps && row.updated_at != null;
    const id = `${createdGiven}/${updatedGiven}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { createdGiven, updatedGiven, rows: [] }));
    group.rows.push(row);
  }
  return groups.values();
}

function updateSet(table: Table, createdGiven: boolean, updatedGiven: boolean): string {
  return table.columns
    .filter((column) => !table.key.includes(column))
    .flatMap((column) => {
      switch (column) {
        case 'created_at':
          return createdGiven ? ['"created_at" = EXCLUDED."created_at"'] : [];
        case 'updated_at':
          return [`"updated_at" = ${updatedGiven ? 'EXCLUDED."updated_at"' : 'now()'}`];
        case 'deleted_at':
          // Deleting again keeps the original deletion time; not deleted clears it.
          return ['"deleted_at" = CASE WHEN EXCLUDED."deleted_at" IS NOT NULL THEN coalesce(t."deleted_at", EXCLUDED."deleted_at") END'];
        default:
          return [`${quote(column)} = EXCLUDED.${quote(column)}`];
      }
    })
    .join(', ');
}
