import { writeFileSync } from 'node:fs';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';

/*
 * Writes the generated demo catalogue bundle as pretty-printed JSON and prints the record count per
 * section. Usage: npx tsx scripts/write-demo-bundle.ts [path] [projects]
 * (path defaults to demo-bundle.json, projects to the default demo size of 48).
 */
const path = process.argv[2] ?? 'demo-bundle.json';
const projectsArg = process.argv[3];
const projects = projectsArg === undefined ? undefined : Number(projectsArg);
if (projects !== undefined && (!Number.isInteger(projects) || projects < 0)) {
  console.error(`projects must be a non-negative integer, got ${projectsArg}`);
  process.exit(1);
}

const bundle = generateDemoBundle({ projects });
writeFileSync(path, `${JSON.stringify(bundle, null, 2)}\n`);

console.log(`wrote ${path}`);
const width = Math.max(...Object.keys(bundle).map((section) => section.length));
for (const [section, records] of Object.entries(bundle)) console.log(`  ${section.padEnd(width)}  ${records.length}`);
