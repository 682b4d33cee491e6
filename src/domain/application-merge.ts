import { ERROR_MESSAGES } from './error-catalogue.js';

/*
 * The rules of POST /units/{id}/applications that need no database: normalising what the client sent,
 * the cross-field checks a JSON schema cannot express, and merging the explicit interests with those
 * derived from the unit. Everything here is pure so each rule is unit-tested on its own; the
 * transaction in queries/applications.ts only feeds it the unit's facts and stores the outcome.
 */

/** Why an application is refused; the route turns each reason into its status code and message. */
export type RejectionReason =
  | { code: 'invalid'; message: string }
  | { code: 'unit_not_found' }
  | { code: 'author_gone' }
  | { code: 'offer_status_catalogue_empty' }
  | { code: 'idempotency_mismatch' }
  | { code: 'idempotency_in_flight' };

export class ApplicationRejected extends Error {
  override name = 'ApplicationRejected';
  constructor(readonly reason: RejectionReason) {
    super(reason.code === 'invalid' ? reason.message : reason.code);
  }
}

const invalid = (message: string) => new ApplicationRejected({ code: 'invalid', message });

export const CONTACT_REQUIRED = ERROR_MESSAGES[400].contactRequired;
export const BUDGET_INVERTED = 'preferences.min_budget must not be greater than preferences.max_budget';

export const CURRENCIES = ['AED', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];
export const DEFAULT_CURRENCY: Currency = 'AED';
export const DEFAULT_LANGUAGE = 'en';
export const OPPORTUNITY_NAME_MAX = 255;

/**
 * The body as the route schema has already checked it (types, lengths, unknown fields): exactly
 * Static<typeof ApplicationBody>, which src/contract/schemas/applications.ts checks at compile time.
 */
export interface ApplicationRequest {
  client: {
    first_name: string;
    last_name?: string | null;
    email?: string | null;
    mobile_number?: string | null;
    landline_number?: string | null;
    address_line1?: string | null;
    address_line2?: string | null;
    city?: string | null;
    country?: string | null;
    postcode?: string | null;
    social_links?: { instagram?: string | null; tiktok?: string | null; facebook?: string | null; x?: string | null };
  };
  preferences?: {
    based_on_unit?: boolean;
    property_types?: number[];
    preferred_area_ids?: number[];
    property_features?: string[];
    preference_ids?: number[];
    project_preference_ids?: number[];
    investment_type?: number | null;
    min_budget?: number | null;
    max_budget?: number | null;
  };
  message?: string | null;
  language?: string | null;
  currency?: Currency | null;
}

export interface ClientFields {
  first_name: string;
  last_name: string | null;
  email: string | null;
  mobile_number: string | null;
  /** Digits of mobile_number, the only part compared when matching clients ('' when none). */
  mobile_digits: string;
  landline_number: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  country: string | null;
  postcode: string | null;
  social_links: Record<string, string>;
}

export interface Budget {
  min: number | null;
  max: number | null;
}

/** The request after normalisation and the checks that need no database. */
export interface PreparedApplication {
  client: ClientFields;
  basedOnUnit: boolean;
  explicit: {
    property_types: number[];
    preferred_area_ids: number[];
    property_features: string[];
    preference_ids: number[];
    project_preference_ids: number[];
  };
  investment_type: number | null;
  budget: Budget;
  message: string | null;
  language: string;
  currency: Currency | null;
}

/** What the unit contributes; `price` is already in the key's prices. */
export interface UnitFacts {
  unit_number: string;
  project_name: string;
  project_type: number;
  area_id: number | null;
  project_currency: string;
  price: number | null;
  tag_ids: number[];
  feature_ids: number[];
}

export interface MergedInterests {
  property_types: number[];
  preferred_area_ids: number[];
  property_features: string[];
  preference_ids: number[];
  project_preference_ids: number[];
  budget: Budget;
  currency: Currency;
}

/** Same rule as the generated column clients.mobile_digits (ASCII digits only). */
export function mobileDigits(mobile: string | null | undefined): string {
  return (mobile ?? '').replace(/[^0-9]/g, '');
}

export function normaliseEmail(email: string | null | undefined): string | null {
  if (email == null) return null;
  return email.trim().toLowerCase();
}

/** Trimmed; empty after trimming means absent. */
function optionalName(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** Order kept, first occurrence wins. */
export function uniqueInOrder<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** Trimmed, empty strings dropped, de-duplicated case-insensitively keeping the first spelling. */
export function normalisePropertyFeatures(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const value of values) {
    const trimmed = value.trim();
    if (!trimmed) continue;
    const folded = trimmed.normalize('NFC').toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    result.push(trimmed);
  }
  return result;
}

export function resolveLanguage(language: string | null | undefined): string {
  const trimmed = language?.trim();
  return trimmed ? trimmed.toLowerCase() : DEFAULT_LANGUAGE;
}

/** An explicit currency wins; otherwise the project's when it is one we accept, else AED. */
export function resolveCurrency(explicit: Currency | null | undefined, projectCurrency: string | null | undefined): Currency {
  if (explicit) return explicit;
  const project = projectCurrency?.trim().toUpperCase();
  return (CURRENCIES as readonly string[]).includes(project ?? '') ? (project as Currency) : DEFAULT_CURRENCY;
}

/**
 * Budget is the one interest that is not merged: an explicit bound always wins, and the unit price
 * fills a missing bound only when the range stays ordered (min <= max).
 */
export function mergeBudget(explicit: Budget, unitPrice: number | null): Budget {
  if (unitPrice === null) return { ...explicit };
  const min = explicit.min ?? (explicit.max === null || unitPrice <= explicit.max ? unitPrice : null);
  const max = explicit.max ?? (explicit.min === null || unitPrice >= explicit.min ? unitPrice : null);
  return { min, max };
}

/** `<client> — <project>, unit <number>`, cut to 255 characters (code points, never half a pair). */
export function opportunityName(firstName: string, lastName: string | null, projectName: string, unitNumber: string): string {
  const client = [firstName.trim(), lastName?.trim() ?? ''].filter(Boolean).join(' ');
  const full = `${client} \u2014 ${projectName}, unit ${unitNumber}`;
  const chars = Array.from(full);
  return chars.length <= OPPORTUNITY_NAME_MAX ? full : chars.slice(0, OPPORTUNITY_NAME_MAX).join('').trimEnd();
}

/** The rule that a client can be reached: an e-mail (not blank) or a mobile number. */
function hasContact(email: string | null, mobile: string | null): boolean {
  return Boolean(email) || mobile !== null;
}

/**
 * The cross-field rules that hold for a body the schema refused, so that a form learns them with the
 * schema's problems at once (`Prefer: errors=all`) instead of on a second submission: the body as it
 * came, whatever its shape. Only rules about fields the schema left alone are reported.
 */
export function contactRuleProblem(body: unknown): { field: string; message: string } | undefined {
  const client = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).client : undefined;
  const fields = client !== null && typeof client === 'object' && !Array.isArray(client) ? (client as Record<string, unknown>) : {};
  const { email, mobile_number: mobile } = fields;
  // A value of another type is the schema's problem, not this rule's.
  if ((email !== undefined && email !== null && typeof email !== 'string') || (mobile !== undefined && mobile !== null && typeof mobile !== 'string')) return undefined;
  if (hasContact(normaliseEmail(email ?? null), mobile ?? null)) return undefined;
  return { field: 'client.email', message: CONTACT_REQUIRED };
}

/**
 * Normalises the body and applies the cross-field rules, before any database work: a first name that
 * is only whitespace, no way to contact the client, an inverted explicit budget.
 */
export function prepareApplication(request: ApplicationRequest): PreparedApplication {
  const { client } = request;
  const firstName = client.first_name.trim();
  if (!firstName) throw invalid('client.first_name must not be blank');

  const email = normaliseEmail(client.email);
  if (email !== null && !email.includes('@')) throw invalid('client.email must contain @');
  const mobile = client.mobile_number ?? null;
  const digits = mobileDigits(mobile);
  if (mobile !== null && digits === '') throw invalid('client.mobile_number must contain at least one digit');
  if (!hasContact(email, mobile)) throw invalid(CONTACT_REQUIRED);

  const preferences = request.preferences ?? {};
  const budget: Budget = { min: preferences.min_budget ?? null, max: preferences.max_budget ?? null };
  if (budget.min !== null && budget.max !== null && budget.min > budget.max) throw invalid(BUDGET_INVERTED);

  const socialLinks: Record<string, string> = {};
  for (const [network, handle] of Object.entries(client.social_links ?? {})) {
    if (typeof handle === 'string' && handle.trim()) socialLinks[network] = handle.trim();
  }

  return {
    client: {
      first_name: firstName,
      last_name: optionalName(client.last_name),
      email,
      mobile_number: mobile,
      mobile_digits: digits,
      landline_number: client.landline_number ?? null,
      address_line1: client.address_line1 ?? null,
      address_line2: client.address_line2 ?? null,
      city: client.city ?? null,
      country: client.country ?? null,
      postcode: client.postcode ?? null,
      social_links: socialLinks,
    },
    basedOnUnit: preferences.based_on_unit === true,
    explicit: {
      property_types: uniqueInOrder(preferences.property_types ?? []),
      preferred_area_ids: uniqueInOrder(preferences.preferred_area_ids ?? []),
      property_features: normalisePropertyFeatures(preferences.property_features ?? []),
      preference_ids: uniqueInOrder(preferences.preference_ids ?? []),
      project_preference_ids: uniqueInOrder(preferences.project_preference_ids ?? []),
    },
    investment_type: preferences.investment_type ?? null,
    budget,
    message: request.message ?? null,
    language: resolveLanguage(request.language),
    currency: request.currency ?? null,
  };
}

/** Explicit values first, then what `based_on_unit` derives from the unit, without duplicates. */
export function mergeWithUnit(prepared: PreparedApplication, unit: UnitFacts): MergedInterests {
  const { explicit } = prepared;
  const derive = prepared.basedOnUnit;
  return {
    property_types: uniqueInOrder([...explicit.property_types, ...(derive ? [unit.project_type] : [])]),
    preferred_area_ids: uniqueInOrder([...explicit.preferred_area_ids, ...(derive && unit.area_id !== null ? [unit.area_id] : [])]),
    property_features: explicit.property_features,
    preference_ids: uniqueInOrder([...explicit.preference_ids, ...(derive ? unit.tag_ids : [])]),
    project_preference_ids: uniqueInOrder([...explicit.project_preference_ids, ...(derive ? unit.feature_ids : [])]),
    budget: derive ? mergeBudget(prepared.budget, unit.price) : { ...prepared.budget },
    currency: resolveCurrency(prepared.currency, unit.project_currency),
  };
}
