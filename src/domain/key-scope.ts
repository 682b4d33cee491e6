/*
 * The key's visibility scope: what one API key sees of the catalogue and in which prices. Every read
 * of projects and units is given it: the SQL reads (src/queries/visibility.ts: projectIsVisible,
 * developerIn), the in-memory search (src/search/visibility.ts, one cached view per set of contracts),
 * the unit and detail reads and the application's unit check. It is part of the key record
 * (src/queries/api-keys.ts: KeyRecord), read once per request with the key.
 */
export interface KeyScope {
  /**
   * Developers with an approved contract with the key's agency (and not deleted): a project is visible
   * when it is published, not deleted and owned by one of them; an agency without contracts sees nothing.
   */
  contracted_developer_ids: readonly number[];
  /** The key's markup (positive) or discount (negative), percent: every price is shown through it (pricing.ts). */
  price_vector: number;
}
