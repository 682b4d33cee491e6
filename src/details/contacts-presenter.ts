/* Presenters whose rows are the queries' types: above the queries (src/contract stays below them); shared by the routes and the MCP tools. */
import type { ProjectContactsRow } from '../queries/contacts.js';
import type { LinkBuilder } from '../contract/links.js';
import { SOCIAL_NETWORKS } from '../contract/schemas/projects.js';

/** GET /projects/{id}/contacts's data as the API shows it (ProjectContacts); shared by the route and the MCP tool. */
export function toProjectContacts(row: ProjectContactsRow, links: LinkBuilder) {
  return {
    company: { id: row.company_id, name: row.company_name, avatar: links(row.company_logo_path) },
    workers: row.workers.map((worker) => ({
      user_id: worker.user_id,
      name: worker.name,
      email: worker.email,
      role: worker.role,
      avatar: links(worker.avatar_path),
      contact_phone: worker.contact_phone,
      social_links: Object.fromEntries(SOCIAL_NETWORKS.map((network) => [network, stringOr(worker.social_links?.[network])])) as Record<
        (typeof SOCIAL_NETWORKS)[number],
        string
      >,
      languages: worker.languages,
      bio: worker.bio,
    })),
  };
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
