import { Type, type Static } from '@sinclair/typebox';
import { MAX_ZOOM } from '../../domain/geo.js';
import { FlatProject, ProjectsQuery } from './projects.js';

/** The most clusters one answer holds; a finer grid that would make more is coarsened. */
export const MAX_CLUSTERS = 200;

const { limit: _limit, offset: _offset, sort: _sort, facets: _facets, bbox, ...filters } = ProjectsQuery.properties;

export const ClustersQuery = Type.Object(
  {
    ...filters,
    bbox: Type.String({ maxLength: bbox.maxLength, description: `The map\u2019s viewport (required): ${bbox.description}` }),
    zoom: Type.Integer({
      minimum: 0,
      maximum: MAX_ZOOM,
      description:
        `The map's zoom level, 0 to ${MAX_ZOOM}: projects are grouped by the web-mercator tile (as web maps cut them) they fall in at ` +
        `this zoom. When that makes more than ${MAX_CLUSTERS} clusters, the grid is coarsened one level at a time until it does not ` +
        '(`grid_zoom` says which was used). Tip: the map\u2019s zoom plus 2 or 3 gives clusters a few dozen pixels apart.',
    }),
  },
  { additionalProperties: false },
);
export type ClustersQuery = Static<typeof ClustersQuery>;

const Degrees = (description: string) => Type.Number({ description });

/** `match=true`: the `match` of GET /projects over a cluster's projects (src/search/clusters.ts). */
export const ClusterMatch = Type.Object(
  {
    units: Type.Integer({ minimum: 0, description: 'The sum of the projects\u2019 `match.units`: their units that satisfy every unit-level filter (all their units without one).' }),
    price_from: Type.Union([Type.Number(), Type.Null()], {
      description:
        'The lowest `match.price_from` of its projects by value, chosen and shown as the cluster\u2019s `price_from` is (in AED at the ' +
        'catalogue\u2019s rates; shown in the key\u2019s prices, in that project\u2019s currency or the one asked for); null when no matching unit has a price.',
    }),
    currency: Type.Union([Type.String(), Type.Null()], { description: 'The currency of `match.price_from`; null with it.' }),
    size_from: Type.Union([Type.Number(), Type.Null()], { description: 'The smallest `match.size_from` of its projects, m²; null when none has one.' }),
  },
  {
    description: 'Only with `match=true`: what matched inside the cluster\u2019s projects (see `match` of GET /projects items), e.g. "2-bed from AED 1,103,560 \u00b7 37 units".',
    examples: [{ units: 37, price_from: 1103560, currency: 'AED', size_from: 61.2 }],
  },
);

export const ProjectCluster = Type.Object(
  {
    tile: Type.String({ description: 'The grid tile as `zoom/x/y` (web mercator, the XYZ scheme of web maps).' }),
    count: Type.Integer({ minimum: 1, description: 'Matching projects in the tile.' }),
    centroid: Type.Object(
      { lat: Degrees('Latitude, degrees.'), lng: Degrees('Longitude, degrees.') },
      { description: 'The mean of the projects\u2019 coordinates: where to draw the marker.' },
    ),
    bounds: Type.Object(
      { west: Degrees('Westmost longitude.'), south: Degrees('Southmost latitude.'), east: Degrees('Eastmost longitude.'), north: Degrees('Northmost latitude.') },
      { description: 'The bounding box of the projects\u2019 coordinates: where to zoom on a click (a point for a cluster of one).' },
    ),
    price_from: Type.Union([Type.Number(), Type.Null()], {
      description:
        'The lowest `price_from` of its projects by value (as `sort=price_from` compares them: in AED at the catalogue\u2019s rates, a ' +
        'currency without a rate counting as no price), shown as GET /projects shows that project: in the key\u2019s prices, in its own ' +
        'currency or, with `currency=`, in the one asked for; null when none has a priced unit.',
    }),
    currency: Type.Union([Type.String(), Type.Null()], { description: 'The currency of `price_from` (projects of a cluster may be priced in several); null with it.' }),
    project: Type.Union([FlatProject, Type.Null()], { description: 'A cluster of one names its project (as GET /projects/list does); null otherwise.' }),
    match: Type.Optional(ClusterMatch),
  },
  { description: 'Projects that fall in one grid tile.' },
);

export const ProjectClusters = Type.Object({
  total: Type.Integer({ description: 'Matching projects: the `total` of GET /projects with the same filters, and the sum of the counts.' }),
  zoom: Type.Integer({ description: 'The zoom asked for.' }),
  grid_zoom: Type.Integer({ description: `The zoom of the grid used: the one asked for, or coarser when it made more than ${MAX_CLUSTERS} clusters.` }),
  clusters: Type.Array(ProjectCluster, { description: `At most ${MAX_CLUSTERS}, largest first (ties by tile).` }),
});
export type ProjectClusters = Static<typeof ProjectClusters>;
