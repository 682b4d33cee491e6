import { Counter, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

type Exported = MetricObjectWithValues<MetricValue<string>>;

export interface TallyCounterConfiguration<Value extends string> {
  name: string;
  help: string;
  /** The one label's name (e.g. `result`). */
  label: string;
  /** Every value the label takes; each is exported from the start, at 0. */
  values: readonly Value[];
  registers: Registry[];
}

/*
 * A counter of one label with a small fixed set of values (hit, miss, bypass …), counted on the request
 * path in plain numbers and turned into prom-client's values only when scraped, as the request
 * histogram is (request-histogram.ts). prom-client's inc({ result }) checks, sorts and hashes the label
 * set on every call, and a detail request counts two or three of these (docs/performance.md, "Metrics
 * and request log cost": no gain above a pinned A/B's noise, kept for the shape the histogram has).
 */
export class TallyCounter<Value extends string> extends Counter<string> {
  private readonly label: string;
  private readonly tally: Map<Value, number>;

  constructor({ name, help, label, values, registers }: TallyCounterConfiguration<Value>) {
    super({ name, help, labelNames: [label], registers });
    this.label = label;
    this.tally = new Map(values.map((value) => [value, 0]));
    // Not this counter's way: what inc() counted would never be exported (get() reads the tally).
    // prom-client's constructor sets inc on the instance, so it is replaced here, not overridden.
    this.inc = () => {
      throw new Error(`${name}: count(value), not inc()`);
    };
  }

  /** One more of `value`. */
  count(value: Value): void {
    this.tally.set(value, this.tally.get(value)! + 1);
  }

  // Set by prom-client's Metric constructor at run time; its typings leave them out.
  declare readonly name: string;
  declare readonly help: string;
  declare readonly type: Exported['type'];
  declare readonly aggregator: Exported['aggregator'];

  override async get(): Promise<Exported> {
    const values = [...this.tally].map(([value, count]) => ({ labels: { [this.label]: value }, value: count }));
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values, collect: () => undefined };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() before this class's fields exist.
    for (const value of this.tally?.keys() ?? []) this.tally.set(value, 0);
  }
}
