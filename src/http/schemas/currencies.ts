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
