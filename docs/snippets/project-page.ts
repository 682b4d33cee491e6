import type { CatalogueClient } from '@catalogue-api/sdk';

/** Step 4: what a project page shows: gallery, units, payment plan, nearby facilities by category. */
export async function projectPage(catalogue: CatalogueClient, projectId: number) {
  const project = await catalogue.getProject(projectId);
  return {
    title: project.name,
    gallery: project.media.images.map((image) => image.file.url),
    units: project.units.map((unit) => ({ id: unit.id, number: unit.unit_number, bedrooms: unit.bedrooms, price: unit.price, currency: project.cost.currency })),
    paymentPlan: project.payment_plans.map((part) => `${part.percent}% ${['', 'down payment', 'during construction', 'on completion'][part.type]}`),
    nearby: Object.fromEntries(
      Object.entries(project.nearby_facilities).map(([category, entries]) => [category, entries.slice(0, 3).map((entry) => `${entry.facility.name} (${Math.round(entry.distance)} m)`)]),
    ),
  };
}
