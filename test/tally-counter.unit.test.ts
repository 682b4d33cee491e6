import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyCounter } from '../src/metrics/tally-counter.js';

const VALUES = ['hit', 'miss', 'bypass'] as const;

/** A TallyCounter and prom-client's own Counter, each in a registry of its own, given the same counts. */
function pair() {
  const tallied = new Registry();
  const plain = new Registry();
  const config = { name: 'test_requests_total', help: 'Requests, by result.' };
  const tally = new TallyCounter({ ...config, label: 'result', values: VALUES, registers: [tallied] });
  const counter = new Counter({ ...config, labelNames: ['result'], registers: [plain] });
  // prom-client's Counter shows a series once counted: every value is shown by both from the start.
  for (const result of VALUES) counter.inc({ result }, 0);
  return { tally, counter, tallied, plain };
}

describe('TallyCounter', () => {
  it('exports what prom-client\u2019s Counter exports for the same counts (random sequences)', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let round = 0; round < 20; round++) {
      const { tally, counter, tallied, plain } = pair();
      const n = Math.floor(random() * 200);
      for (let i = 0; i < n; i++) {
        const result = VALUES[Math.floor(random() * VALUES.length)];
        tally.count(result);
        counter.inc({ result });
      }
      expect(await tallied.metrics()).toBe(await plain.metrics());
      // The same object for readers of get() (tests, the scrape), but for the no-op collect the typings ask for.
      const { collect: _collect, ...exported } = await tally.get();
      expect(exported).toEqual(await counter.get());
    }
  });

  it('refuses inc(), whose counts would never be exported', () => {
    const { tally } = pair();
    expect(() => tally.inc({ result: 'hit' })).toThrow('test_requests_total: count(value), not inc()');
    expect(() => tally.inc()).toThrow();
  });

  it('starts again from 0 when reset (as the registry\u2019s resetMetrics does)', async () => {
    const { tally, tallied } = pair();
    tally.count('hit');
    tally.count('hit');
    expect((await tally.get()).values.find((v) => v.labels.result === 'hit')?.value).toBe(2);
    tallied.resetMetrics();
    expect((await tally.get()).values.map((v) => v.value)).toEqual([0, 0, 0]);
    tally.count('miss');
    expect((await tally.get()).values.map((v) => v.value)).toEqual([0, 1, 0]);
  });
});
