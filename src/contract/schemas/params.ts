import { Type, type Static } from '@sinclair/typebox';

/*
 * The `{id}` path parameter shared by every `/resource/{id}` route. Any failure here (not a number,
 * zero, negative, fractional) becomes `id must be a positive integer` in validation.ts. A positive
 * integer beyond what storage holds is an id by that rule and names no record: 404, as an unknown id
 * (src/domain/record-ids.ts).
 */
export const IdParams = Type.Object(
  { id: Type.Integer({ minimum: 1, description: 'Record id, an integer of at least 1 (one above 2147483647 names no record: 404).' }) },
  { additionalProperties: false },
);

export type IdParams = Static<typeof IdParams>;
