import assert from 'node:assert/strict';
import { execFile as execFileCallback } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'vite';
import { startDemoApi } from './agency-site-demo.js';

/*
 * `npm run test:sdk-pack` (run by .ci/run): the SDK as an agency gets it. Packs sdk/ with `npm pack`
 * (its prepack builds dist/), installs the tarball into an empty temporary project, and against a demo
 * service started here runs: a plain .mjs script on Node; a .ts file type-checked with NodeNext and
 * with bundler resolution (its @ts-expect-error lines prove the declarations are real types), then
 * compiled and run; a CommonJS require() (Node >= 20.19 loads the ESM build); and a Vite browser
 * bundle, imported and called. Exits 1 at the first failure.
 */
const execFile = promisify(execFileCallback);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = join(ROOT, 'scripts', 'sdk-pack');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    const { stdout } = await execFile(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? failed.message}`);
  }
}

function step(title: string): void {
  console.log(`sdk-pack: ${title}`);
}

const tsconfig = (moduleResolution: 'NodeNext' | 'Bundler') => ({
  compilerOptions: {
    target: 'ES2022',
    module: moduleResolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
    moduleResolution,
    strict: true,
    // Checked as the consumer sees them: the SDK's own declarations included.
    skipLibCheck: false,
    lib: ['ES2022', 'DOM'],
    types: [],
    outDir: `out-${moduleResolution.toLowerCase()}`,
  },
  files: ['consumer.ts'],
});

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'sdk-pack-'));
  const { api, apiKey, pictures } = await startDemoApi({ apiPort: 0 });
  try {
    step('npm pack (builds dist/)');
    const packOut = await run('npm', ['pack', '--workspace', 'sdk', '--pack-destination', work, '--json'], { cwd: ROOT });
    const [packed] = JSON.parse(packOut.slice(packOut.indexOf('['))) as { filename: string; version: string; files: { path: string }[] }[];
    const sdkManifest = JSON.parse(await readFile(join(ROOT, 'sdk', 'package.json'), 'utf8')) as { version: string };
    assert.equal(packed.version, sdkManifest.version);
    const paths = packed.files.map((file) => file.path);
    assert.ok(paths.includes('dist/index.js') && paths.includes('dist/index.d.ts'), 'the tarball holds the built ESM and its declarations');
    assert.ok(!paths.some((path) => path.startsWith('src/')), 'the tarball holds no TypeScript sources');

    const project = join(work, 'agency');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'agency', private: true, version: '1.0.0', type: 'module' }));
    step(`npm install ${packed.filename} into an empty project`);
    // --prefer-offline: openapi-fetch, the one dependency, is in the npm cache after `npm ci`.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], { cwd: project });
    for (const file of await readdir(FIXTURES)) await cp(join(FIXTURES, file), join(project, file));
    const env = { CATALOGUE_API_URL: api.url, CATALOGUE_API_KEY: apiKey };

    step('plain Node: consumer.mjs');
    const plain = JSON.parse(await run('node', ['consumer.mjs'], { cwd: project, env })) as { total: number; apiVersion: string; error: string };
    assert.ok(plain.total > 20);
    assert.equal(plain.apiVersion, sdkManifest.version);
    assert.match(plain.error, /price_min/);

    for (const resolution of ['NodeNext', 'Bundler'] as const) {
      step(`TypeScript, moduleResolution ${resolution}: type-check and compile consumer.ts`);
      await writeFile(join(project, `tsconfig.${resolution}.json`), JSON.stringify(tsconfig(resolution)));
      await run('node', [TSC, '-p', `tsconfig.${resolution}.json`], { cwd: project });
    }
    // The NodeNext output runs on Node as it is.
    const typed = JSON.parse(await run('node', ['out-nodenext/consumer.js'], { cwd: project, env })) as { names: number; status: number };
    assert.equal(typed.names, 3);
    assert.equal(typed.status, 400);

    step('CommonJS: require()');
    const required = await run('node', ['-e', "const sdk = require('@catalogue-api/sdk'); console.log(typeof sdk.CatalogueClient)"], { cwd: project });
    assert.equal(required.trim(), 'function');

    step('Vite browser bundle');
    await build({
      root: project,
      logLevel: 'warn',
      configFile: false,
      build: { outDir: join(project, 'bundle'), lib: { entry: join(project, 'browser-entry.js'), formats: ['es'], fileName: 'site' }, minify: true },
    });
    const bundle = await readFile(join(project, 'bundle', 'site.js'), 'utf8');
    assert.ok(!/from\s*["']node:/.test(bundle), 'the browser bundle imports nothing from Node');
    // sideEffects: false lets the bundler drop what the page does not use (the 440 kB OpenAPI document).
    assert.ok(bundle.length < 60_000, `the browser bundle is small (${bundle.length} bytes)`);
    const browserModule = (await import(join(project, 'bundle', 'site.js'))) as { whoAmI(baseUrl: string, key: string): Promise<{ company: { name: string } }> };
    assert.equal((await browserModule.whoAmI(api.url, apiKey)).company.name.length > 0, true);
    console.log(`sdk-pack: ok (${packed.filename}, browser bundle ${bundle.length} bytes)`);
  } finally {
    await Promise.all([api.stop(), pictures.close()]);
    await rm(work, { recursive: true, force: true });
  }
}

await main();
