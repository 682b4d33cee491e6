import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { priceFactor } from '../../domain/pricing.js';
import type { AppDeps } from '../deps.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { Link } from '../../contract/schemas/reference.js';

const WhoAmI = Type.Object({
  api_key: Type.Object({
    id: Type.Integer({ description: 'Key id.' }),
    name: Type.String({ description: 'Label of the integration.' }),
    key_prefix: Type.String({ description: 'First characters of the key only, e.g. `ck_3f9a1c`.' }),
    status: Type.Integer({ description: '0 = active (only active keys get this far).' }),
    price_vector: Type.Number({ description: 'Percent, greater than -100 and at most 100.' }),
    price_factor: Type.Number({ description: '1 + price_vector/100: every price served to this key is the base price times this.' }),
  }, { description: 'The key that was presented (never its secret).' }),
  company: Type.Object({
    id: Type.Integer({ description: 'Company id.' }),
    company_type: Type.Integer({ description: '2 = agency.' }),
    name: Type.String({ description: 'Company name.' }),
    logo: Link,
  }, { description: 'The agency that owns the key.' }),
  author: Type.Object(
    { id: Type.Integer({ description: 'User id.' }), name: Type.String({ description: 'Full name.' }), email: Type.String({ description: 'E-mail address.' }) },
    { description: 'The user who issued the key.' },
  ),
});

export const whoAmIRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { links }) => {
  app.get(
    '/whoIAm',
    {
      schema: {
        tags: ['Key'],
        operationId: 'whoAmI',
        summary: 'Verify the key',
        description: 'The key that was presented, its company, its author and the price factor it applies.',
        response: responses({ 200: Success(WhoAmI, 'The key, its company and its author.') }),
      },
    },
    async (request) => {
      const { auth } = request;
      return ok({
        api_key: {
          id: auth.id,
          name: auth.name,
          key_prefix: auth.key_prefix,
          status: auth.status,
          price_vector: auth.price_vector,
          price_factor: priceFactor(auth.price_vector),
        },
        company: { id: auth.company.id, company_type: auth.company.company_type, name: auth.company.name, logo: links(auth.company.logo_path) },
        author: { id: auth.author.id, name: auth.author.name, email: auth.author.email },
      });
    },
  );
};
