import type { Static, TSchema } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';

/*
 * JSON text of a value as a route whose response schema holds `schema` sends it: the same compiler
 * (fast-json-stringify, which Fastify compiles response schemas with), so the properties come in the
 * schema's order, undeclared ones are left out and every value is written as the route writes it.
 * Text prepared ahead (the search snapshot's unit details) is then byte for byte the route's.
 */
export function schemaSerializer<T extends TSchema>(schema: T): (value: Static<T>) => string {
  return fastJson(schema);
}
