import type { UnitFilters } from '../domain/project-filters.js';
import type { KeyPricing } from '../domain/pricing.js';
import { shownPrice, type DisplayPrices } from './display-prices.js';
import type { Snapshot } from './snapshot.js';
import { UnitMatcher, type UnitMatch } from './unit-matcher.js';

/*
 * `match=true` (an addition): what matched inside each project, so that a search card can read
 * "2-bed from AED 1,103,560 · 4 units" where `price_from` is the lowest price of every unit. Over the
 * project's live units that satisfy every unit-level filter of the request (the unit matcher's own
 * tests, so exactly the units that made the project match): their number, their lowest price shown as
 * `price_from` is shown (key's prices, `currency=`), their smallest area. Without unit-level filters,
 * the project's own figures. Worked out after paging, for the page's items only (and for the members of
 * GET /projects/clusters): the search, its result cache and the answer without `match` are untouched.
 */
export class WhatMatched {
  private readonly matcher: UnitMatcher;
  /** Reused by every call (no allocation per item). */
  private readonly found: UnitMatch = { units: 0, minBaseCents: Number.NaN, minArea: Number.NaN };

  constructor(
    private readonly snapshot: Snapshot,
    units: UnitFilters | undefined,
    private readonly pricing: KeyPricing,
    private readonly display?: DisplayPrices,
  ) {
    this.matcher = new UnitMatcher(snapshot, units, pricing, display);
  }

  /** Project i's figures; the object is overwritten by the next call. */
  of(i: number): Readonly<UnitMatch> {
    return this.matcher.matching(i, this.found);
  }

  /** Project i's figures as shown to the request: its price in its item's currency (unconverted without a rate). */
  shown(i: number): { units: number; price_from: number | null; size_from: number | null } {
    const { units, minBaseCents, minArea } = this.of(i);
    const converted = this.display?.from[this.snapshot.projects.currencyIndex[i]];
    return { units, price_from: shownPrice(minBaseCents, this.pricing, converted), size_from: Number.isNaN(minArea) ? null : minArea };
  }

  /** Project i's `match` as JSON text, in the order of its schema (ProjectMatch). */
  json(i: number): string {
    const { units, price_from, size_from } = this.shown(i);
    return `{"units":${units},"price_from":${JSON.stringify(price_from)},"size_from":${JSON.stringify(size_from)}}`;
  }
}
