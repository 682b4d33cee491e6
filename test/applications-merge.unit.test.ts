import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ApplicationRejected,
  CONTACT_REQUIRED,
  mergeBudget,
  mergeWithUnit,
  mobileDigits,
  normaliseEmail,
  normalisePropertyFeatures,
  opportunityName,
  prepareApplication,
  resolveCurrency,
  resolveLanguage,
  type ApplicationRequest,
  type UnitFacts,
} from '../src/domain/application-merge.js';
import { canonicalJson, requestHash } from '../src/domain/idempotency.js';
import { messages } from '../src/domain/error-catalogue.js';

const unit: UnitFacts = {
  unit_number: 'A-101',
  project_name: 'Marina Heights',
  project_type: 3,
  area_id: 1,
  project_currency: 'AED',
  price: 1_000_000,
  tag_ids: [1, 2],
  feature_ids: [1, 3],
};

const request = (extra: Partial<ApplicationRequest> = {}, client: Partial<ApplicationRequest['client']> = {}): ApplicationRequest => ({
  client: { first_name: 'Jane', email: 'jane@example.com', ...client },
  ...extra,
});

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationRejected);
    return (error as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('prepareApplication', () => {
  it('uses the exact contact message of the specification', () => {
    expect(CONTACT_REQUIRED).toBe(messages.contactRequired);
    expect(rejection(() => prepareApplication(request({}, { email: null })))).toBe(CONTACT_REQUIRED);
    expect(rejection(() => prepareApplication(request({}, { email: undefined, mobile_number: null })))).toBe(CONTACT_REQUIRED);
  });

  it('rejects a blank first name, an email without @, a mobile number without digits', () => {
    expect(rejection(() => prepareApplication(request({}, { first_name: ' \t ' })))).toBe('client.first_name must not be blank');
    expect(rejection(() => prepareApplication(request({}, { email: 'jane' })))).toBe('client.email must contain @');
    expect(rejection(() => prepareApplication(request({}, { email: null, mobile_number: '+ ()' })))).toBe('client.mobile_number must contain at least one digit');
  });

  it('rejects explicit bounds in the wrong order, accepts equal ones', () => {
    expect(rejection(() => prepareApplication(request({ preferences: { min_budget: 2, max_budget: 1 } })))).toBe(
      'preferences.min_budget must not be greater than preferences.max_budget',
    );
    expect(prepareApplication(request({ preferences: { min_budget: 1, max_budget: 1 } })).budget).toEqual({ min: 1, max: 1 });
  });

  it('normalises the client: names and email trimmed, email lower-cased, mobile kept as given', () => {
    const prepared = prepareApplication(
      request({}, { first_name: ' Jane ', last_name: '  ', email: ' Jane@Example.COM ', mobile_number: '+971 50 123 4567', social_links: { x: 'jane', tiktok: null } }),
    );
    expect(prepared.client).toMatchObject({
      first_name: 'Jane',
      last_name: null,
      email: 'jane@example.com',
      mobile_number: '+971 50 123 4567',
      mobile_digits: '971501234567',
      social_links: { x: 'jane' },
    });
  });

  it('defaults: language en, no currency, no budget, nothing derived', () => {
    const prepared = prepareApplication(request());
    expect(prepared).toMatchObject({ language: 'en', currency: null, budget: { min: null, max: null }, basedOnUnit: false, message: null, investment_type: null });
  });
});

describe('mergeWithUnit', () => {
  it('keeps explicit values first, adds the unit\u2019s, de-duplicates', () => {
    const prepared = prepareApplication(
      request({
        preferences: { based_on_unit: true, property_types: [7, 3, 7], preferred_area_ids: [2], preference_ids: [2, 5], project_preference_ids: [4] },
      }),
    );
    expect(mergeWithUnit(prepared, unit)).toEqual({
      property_types: [7, 3],
      preferred_area_ids: [2, 1],
      property_features: [],
      preference_ids: [2, 5, 1],
      project_preference_ids: [4, 1, 3],
      budget: { min: 1_000_000, max: 1_000_000 },
      currency: 'AED',
    });
  });

  it('derives nothing without based_on_unit', () => {
    const prepared = prepareApplication(request({ preferences: { property_types: [7], min_budget: 5 } }));
    expect(mergeWithUnit(prepared, unit)).toMatchObject({ property_types: [7], preferred_area_ids: [], preference_ids: [], project_preference_ids: [], budget: { min: 5, max: null } });
  });

  it('adds no area when the project has none', () => {
    const prepared = prepareApplication(request({ preferences: { based_on_unit: true } }));
    expect(mergeWithUnit(prepared, { ...unit, area_id: null }).preferred_area_ids).toEqual([]);
  });
});

describe('mergeBudget', () => {
  const price = 1_000_000;
  it.each([
    ['no bound', { min: null, max: null }, { min: price, max: price }],
    ['both explicit', { min: 1, max: 2 }, { min: 1, max: 2 }],
    ['min below the price', { min: 10, max: null }, { min: 10, max: price }],
    ['min above the price', { min: 2 * price, max: null }, { min: 2 * price, max: null }],
    ['min equal to the price', { min: price, max: null }, { min: price, max: price }],
    ['max above the price', { min: null, max: 2 * price }, { min: price, max: 2 * price }],
    ['max below the price', { min: null, max: 10 }, { min: null, max: 10 }],
    ['max equal to the price', { min: null, max: price }, { min: price, max: price }],
  ])('%s', (_case, explicit, expected) => {
    expect(mergeBudget(explicit, price)).toEqual(expected);
  });

  it('fills nothing without a price', () => {
    expect(mergeBudget({ min: null, max: 5 }, null)).toEqual({ min: null, max: 5 });
  });

  it('never overrides an explicit bound and never inverts an ordered range', () => {
    const bound = fc.option(fc.double({ min: 0, max: 1e12, noNaN: true }), { nil: null });
    fc.assert(
      fc.property(bound, bound, fc.option(fc.double({ min: 0, max: 1e12, noNaN: true }), { nil: null }), (a, b, unitPrice) => {
        const explicit = a !== null && b !== null && a > b ? { min: b, max: a } : { min: a, max: b };
        const merged = mergeBudget(explicit, unitPrice);
        if (explicit.min !== null) expect(merged.min).toBe(explicit.min);
        if (explicit.max !== null) expect(merged.max).toBe(explicit.max);
        if (merged.min !== null && merged.max !== null) expect(merged.min).toBeLessThanOrEqual(merged.max);
        for (const value of [merged.min, merged.max]) expect([explicit.min, explicit.max, unitPrice]).toContain(value);
      }),
    );
  });
});

describe('small rules', () => {
  it('property_features: trimmed, empty dropped, case-insensitive de-duplication keeping the first spelling', () => {
    expect(normalisePropertyFeatures(['  Sea View ', 'sea view', '', '  ', 'SEA VIEW', 'Garden', 'garden '])).toEqual(['Sea View', 'Garden']);
    fc.assert(
      fc.property(fc.array(fc.string()), (values) => {
        const result = normalisePropertyFeatures(values);
        expect(new Set(result.map((v) => v.toLowerCase())).size).toBe(result.length);
        for (const v of result) expect(v).toBe(v.trim());
        expect(result.every((v) => v.length > 0)).toBe(true);
        expect(normalisePropertyFeatures(result)).toEqual(result);
      }),
    );
  });

  it('currency: explicit, else the project\u2019s when AED or USD, else AED', () => {
    expect(resolveCurrency('USD', 'AED')).toBe('USD');
    expect(resolveCurrency(null, 'USD')).toBe('USD');
    expect(resolveCurrency(undefined, 'usd')).toBe('USD');
    expect(resolveCurrency(null, 'AED')).toBe('AED');
    expect(resolveCurrency(null, 'EUR')).toBe('AED');
    expect(resolveCurrency(null, '')).toBe('AED');
  });

  it('language: lower-cased, default en', () => {
    expect(resolveLanguage('EN-GB')).toBe('en-gb');
    expect(resolveLanguage(null)).toBe('en');
    expect(resolveLanguage(undefined)).toBe('en');
    expect(resolveLanguage('  ')).toBe('en');
  });

  it('mobile digits and email as the database compares them', () => {
    expect(mobileDigits('+971 50 123 4567')).toBe(mobileDigits('971501234567'));
    expect(mobileDigits('(050) 123-45-67 ext.')).toBe('0501234567');
    expect(mobileDigits(null)).toBe('');
    expect(normaliseEmail(' A@B.Com ')).toBe('a@b.com');
    expect(normaliseEmail(null)).toBeNull();
  });

  it('opportunity name: client, project and unit, cut to 255 characters without splitting a character', () => {
    expect(opportunityName('Jane', 'Doe', 'Marina Heights', 'A-101')).toBe('Jane Doe \u2014 Marina Heights, unit A-101');
    expect(opportunityName('Jane', null, 'Marina Heights', 'A-101')).toBe('Jane \u2014 Marina Heights, unit A-101');
    const long = opportunityName('Jane', 'Doe', 'x'.repeat(300), '1');
    expect(long).toHaveLength(255);
    const emoji = opportunityName('Jane', 'Doe', '\u{1F3E0}'.repeat(300), '1');
    expect(Array.from(emoji)).toHaveLength(255);
    expect(emoji.endsWith('\u{1F3E0}')).toBe(true);
  });
});

describe('idempotency request hash', () => {
  it('ignores key order and whitespace, not values, array order, method or path', () => {
    const body = { client: { first_name: 'Jane', email: 'j@x.ae' }, preferences: { preference_ids: [1, 2] } };
    const same = JSON.parse('{"preferences":{"preference_ids":[1,2]},  "client":{"email":"j@x.ae","first_name":"Jane"}}');
    const hash = requestHash('POST', '/units/1/applications', body);
    expect(requestHash('post', '/units/1/applications', same)).toBe(hash);
    expect(requestHash('POST', '/units/2/applications', body)).not.toBe(hash);
    expect(requestHash('POST', '/units/1/applications', { ...body, preferences: { preference_ids: [2, 1] } })).not.toBe(hash);
    expect(requestHash('POST', '/units/1/applications', { ...body, message: null })).not.toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('canonical JSON is valid JSON equal to the input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
