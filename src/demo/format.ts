/*
 * Value formatting shared by the generators, so padded numbers, rounded decimals and slugs come out the
 * same in every table.
 */

export const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};
export const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
