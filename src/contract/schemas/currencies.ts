import { Type } from '@sinclair/typebox';

export const CurrencyRateItem = Type.Object(
  {
    currency: Type.String({ description: 'ISO 4217 code (three upper-case letters).', examples: ['USD'] }),
    aed_per_unit: Type.Number({ description: 'AED for one unit of the currency; 1 for AED.', examples: [3.6725] }),
    minor_unit: Type.Integer({ description: 'Decimals prices in this currency are rounded to (2 for most; 0 for JPY, 3 for KWD).', examples: [2] }),
    as_of: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the rate was taken (RFC 3339); null for AED, which is 1 by definition.' }),
  },
  { description: 'A currency prices can be converted to and from.' },
);

export const CurrencyList = Type.Object({
  items: Type.Array(CurrencyRateItem, { description: 'AED, then every currency with a rate, by code.' }),
});

/** `currency=` of the priced reads (an addition: absent, every answer is the specified one). */
export const DisplayCurrencyParam = Type.Optional(
  Type.String({
    pattern: '^[A-Z]{3}$',
    'x-error-message': 'must be a currency code of three upper-case letters (e.g. USD)',
    description:
      'Optional (an addition to the specification). Show every price in this currency: AED or a currency of GET /currencies (another ' +
      'code gives 400 naming it). Prices are base price \u00d7 key factor \u00d7 rate of the project\u2019s currency \u00f7 rate of this one, ' +
      'rounded half away from zero to its minor unit, and `currency` fields say this code. Price bounds (`price_*`, `price_per_*`) are ' +
      'taken in this currency too; a project whose currency has no rate keeps its own prices and `currency`, is left out by price ' +
      'bounds (as units without a price are) and comes last in the `price_from` sort. Without `currency`, prices are in each ' +
      'project\u2019s own currency, as specified.',
    examples: ['USD'],
  }),
);
