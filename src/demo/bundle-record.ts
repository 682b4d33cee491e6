import type { SectionName, SectionRecord } from '../import/bundle-schema.js';

/*
 * The demo bundle is typed as the importer's `Bundle` (src/import/bundle-schema.ts, Static of the bundle
 * schema): each generator builds the records of its section as `Row<'section'>`, so a field the bundle
 * does not know, or of the wrong type, does not compile. `Rec` is left for the free-form JSON inside a
 * record (a facility's data, a member's social links).
 */

export type Row<S extends SectionName> = SectionRecord<S>;
export type Rec = Record<string, unknown>;
