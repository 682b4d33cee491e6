import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/*
 * The import rules of .dependency-cruiser.cjs (the layers of src/, every module in a layer, no
 * folder-level cycle) fail on a tree that breaks them: test/fixtures/import-rules/src breaks each
 * rule once, and the real src/ breaks none.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = fileURLToPath(new URL('fixtures/import-rules/', import.meta.url));
const config = fileURLToPath(new URL('../.dependency-cruiser.cjs', import.meta.url));
const depcruise = fileURLToPath(new URL('../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** dependency-cruiser's violations of src/ under `cwd`, with the project's configuration. */
async function violations(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile);
  const args = [depcruise, 'src', '--config', config, '--output-type', 'json'];
  // dependency-cruiser exits non-zero when it finds violations; the report is on stdout either way.
  const stdout = await run(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).then(
    (result) => result.stdout,
    (error: { stdout?: string }) => {
      if (!error.stdout) throw error;
      return error.stdout;
    },
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const named = (found: Violation[], rule: string) => found.filter((violation) => violation.rule.name === rule).map(({ from, to }) => `${from} -> ${to}`).sort();

describe('import rules (npm run check:imports)', () => {
  it('fail on an upward import, a folder cycle and a module in no layer', async () => {
    const found = await violations(fixture);
    expect(named(found, 'layer-lib')).toEqual(['src/lib/helper.ts -> src/domain/rule.ts']);
    expect(named(found, 'no-folder-cycle')).toEqual(['src/bodies -> src/queries', 'src/queries -> src/bodies']);
    expect(named(found, 'every-module-in-a-layer')).toEqual(['src/cli/main.ts -> src/stray.ts', 'src/stray.ts -> src/lib/helper.ts']);
    // The folder cycle is no module cycle: only the folder-level check sees it.
    expect(named(found, 'no-circular')).toEqual([]);
    expect(found).toHaveLength(5);
  }, 120_000);

  it('pass on the service\u2019s own src/', async () => {
    expect(await violations(root)).toEqual([]);
  }, 120_000);
});
