import { Type, type Static } from '@sinclair/typebox';

/*
 * The `{id}` path parameter shared by every `/resource/{id}` route. Any failure here (not a number,
 * zero, negative, fractional) becomes `id must be a positive integer` in validation.ts.
 */
export const IdParams = Type.Object(
  // Ids are 32-bit in storage; a larger number could not name a record, and would fail in the database.
  { id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Record id, an integer of at least 1.' }) },
  { additionalProperties: false },
);

export type IdParams = Static<typeof IdParams>;
