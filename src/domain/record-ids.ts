/*
 * Record ids are PostgreSQL `integer`s (32-bit, signed) in every table. A larger number in a request
 * is still an id by the specification's rule ("a positive integer") but names no record: a lookup
 * answers not found without asking the database, which would refuse the value as out of range
 * (SQL: `integer` is -2147483648 to 2147483647).
 */
export const INT32_MAX = 2147483647;
export const INT32_MIN = -INT32_MAX - 1;

/** Whether `id` can be the id of a stored record (a positive 32-bit integer). */
export function isStorableId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= INT32_MAX;
}
