import type { Bundle, SectionName, SectionRecord } from './bundle-schema.js';

/*
 * How the importer's steps reach the records of a validated bundle, and how an error names one: every
 * check, writer and database error speaks of `section[index].field`, so the wording lives in one place.
 */

export type Records<S extends SectionName> = SectionRecord<S>[];
export type AnyRecord = Record<string, unknown>;

export const records = <S extends SectionName>(bundle: Bundle, section: S): Records<S> => (bundle[section] ?? []) as Records<S>;

export const at = (section: string, index: number, field: string) => `${section}[${index}].${field}`;
