import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { BASE_CURRENCY, minorUnitDigits } from '../../domain/currency.js';
import type { AppDeps } from '../deps.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { CurrencyList } from '../../contract/schemas/currencies.js';

export const currencyRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { search }) => {
  app.get(
    '/currencies',
    {
      schema: {
        tags: ['Reference'],
        operationId: 'listCurrencies',
        summary: 'Currencies and exchange rates',
        description:
          'The currencies the `currency` parameter of the priced reads accepts: AED, then every currency the catalogue has a rate for, with ' +
          'AED per unit and when the rate was taken. An addition to the specification. Rates come with the catalogue (bundle section ' +
          '`currency_rates`) and change with it; conversion is exact: base price \u00d7 key factor \u00d7 source rate \u00f7 target rate, rounded ' +
          'half away from zero to the target\u2019s minor unit.',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: responses({ 200: Success(CurrencyList, 'AED and every rated currency.') }),
      },
    },
    async () => {
      // From the search snapshot: the rates GET /projects converts with.
      const { rates } = await search.latest();
      const base = { currency: BASE_CURRENCY, aed_per_unit: 1, minor_unit: minorUnitDigits(BASE_CURRENCY), as_of: null };
      return ok({ items: [base, ...rates.list().map((rate) => ({ ...rate, minor_unit: minorUnitDigits(rate.currency) }))] });
    },
  );
};
