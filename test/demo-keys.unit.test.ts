import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isWellFormedApiKey } from '../src/domain/api-key.js';
import { generateDemoBundle } from '../src/demo/demo-bundle.js';
import { mobileDigits } from '../src/domain/application-merge.js';
import { operationExamples } from '../src/http/openapi/examples.js';

/*
 * Issue 20, defect 7: no key in a generated bundle may have a secret that can be computed from the
 * public source. The demo bundle's stored key used to be ck_ + SHA-256 of a string in the source.
 */

const secrets = (bundle: Record<string, unknown[]>) => (bundle.api_keys as { key: string }[]).map((k) => k.key);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /\.(ts|mjs|json)$/.test(e.name)).map((e) => join(e.parentPath, e.name));
}

describe('generated API keys', () => {
  it('are drawn at random at every generation (default and scale catalogues alike)', () => {
    const first = secrets(generateDemoBundle());
    const second = secrets(generateDemoBundle());
    const scale = secrets(generateDemoBundle({ projects: 49, facilities: 10 }));
    expect(first.length).toBeGreaterThan(0);
    for (const key of [...first, ...second, ...scale]) expect(isWellFormedApiKey(key)).toBe(true);
    const all = [...first, ...second, ...scale];
    expect(new Set(all).size).toBe(all.length);
  });

  it('match no value derived from the source: neither the former fixed secret nor any text in src/', async () => {
    const keys = secrets(generateDemoBundle());
    const formerFixed = `ck_${createHash('sha256').update('catalogue-demo:second-agency:key:v1').digest('hex')}`;
    expect(keys).not.toContain(formerFixed);
    const hexes = keys.map((key) => key.slice(3));
    for (const file of await sourceFiles('src')) {
      const text = await readFile(file, 'utf8');
      for (const hex of hexes) expect(text.includes(hex), `${file} holds a generated secret`).toBe(false);
    }
  });
});

describe('safe by default', () => {
  it('every key of the demo bundle with a domain list answers applications in the private form', () => {
    const keys = generateDemoBundle().api_keys as { allowed_domains: string[] | null; private_applications?: boolean }[];
    const browserKeys = keys.filter((key) => key.allowed_domains?.length);
    expect(browserKeys.length).toBeGreaterThan(0);
    for (const key of browserKeys) expect(key.private_applications).toBe(true);
  });

  it('the documented first application is a contact the demo CRM does not hold', () => {
    const { client } = operationExamples.submitApplication!.requestBody as { client: { email: string; mobile_number: string } };
    const clients = generateDemoBundle().clients as { email: string | null; mobile_number: string | null }[];
    expect(clients.length).toBeGreaterThan(0);
    for (const stored of clients) {
      expect(stored.email?.toLowerCase()).not.toBe(client.email.toLowerCase());
      if (stored.mobile_number) expect(mobileDigits(stored.mobile_number)).not.toBe(mobileDigits(client.mobile_number));
    }
  });
});
