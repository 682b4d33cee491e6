import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parseProjectsQuery } from '../../contract/projects-query.js';
import { clusterProjects } from '../../search/clusters.js';
import { derivedOnce } from '../../search/result-cache.js';
import { matchProjects } from '../../search/find-projects.js';
import { ClustersQuery, MAX_CLUSTERS, ProjectClusters } from '../../contract/schemas/clusters.js';
import { ok, responses, Success } from '../../contract/schemas/envelope.js';
import { displayPrices, keyPricingOf } from '../../search/display-prices.js';
import { WhatMatched } from '../../search/what-matched.js';
import { displayCurrencyOf } from '../display-currency.js';
import type { AppDeps } from '../deps.js';

export const projectClusterRoutes: FastifyPluginAsyncTypebox<AppDeps> = async (app, { config, search }) => {
  app.get(
    '/projects/clusters',
    {
      schema: {
        tags: ['Catalogue'],
        operationId: 'listProjectClusters',
        summary: 'Projects grouped for a map',
        description:
          'The projects GET /projects would find with the same filters, inside the viewport `bbox`, grouped by map grid tile at `zoom`: ' +
          'per cluster its count, centroid, bounds and lowest price (in the key\u2019s prices); a cluster of one names its project. At most ' +
          `${MAX_CLUSTERS} clusters; the counts add up to \`total\`. Visibility and prices are exactly those of GET /projects. With ` +
          '`match=true` (an addition), each cluster also has `match`: its projects\u2019 units that satisfy the unit-level filters, their lowest price and smallest area.',
        querystring: ClustersQuery,
        response: responses({ 200: Success(ProjectClusters, 'The clusters of the matching projects.') }),
      },
    },
    async (request) => {
      const { zoom, ...filters } = request.query;
      // The search of GET /projects (its default order, so its result cache is shared with the list).
      const page = parseProjectsQuery(filters);
      const snapshot = await search.latest();
      const display = displayCurrencyOf(filters.currency, snapshot.rates);
      const scope = display ? { ...request.auth, display } : request.auth;
      const found = matchProjects(snapshot, scope, page, { amenitiesRadiusM: config.amenitiesRadiusM });
      // Made once per search (its kept result), zoom and `match`: a map showing the same view to many visitors asks it again.
      return derivedOnce(found, `clusters ${zoom} ${page.match}`, () => {
        const prices = display && displayPrices(snapshot, request.auth.price_vector, display);
        const pricing = keyPricingOf(request.auth.price_vector);
        const matched = page.match ? new WhatMatched(snapshot, page.filters.units, pricing, prices) : undefined;
        const { gridZoom, clusters } = clusterProjects(snapshot, found.matches, zoom, MAX_CLUSTERS, pricing, prices, matched);
        const { flatItem } = snapshot.projects;
        return ok({
          total: found.matches.total,
          zoom,
          grid_zoom: gridZoom,
          clusters: clusters.map(({ only, ...cluster }) => ({ ...cluster, project: only < 0 ? null : (JSON.parse(flatItem[only]) as ProjectClusters['clusters'][number]['project']) })),
        });
      });
    },
  );
};
