import { Histogram, type HistogramConfiguration, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';

type Label = 'route' | 'method' | 'status_class';
/** The exported values also carry `le` (a bucket's bound), which prom-client reserves for itself. */
type ExportedLabel = Label | 'le';
type Exported = MetricObjectWithValues<MetricValueWithName<ExportedLabel>>;

interface Series {
  labels: Record<Label, string>;
  /** Observations per bucket (not cumulative), the last one past the largest bound (+Inf). */
  counts: Float64Array;
  sum: number;
}

/*
 * The request duration histogram, tallied in plain arrays and turned into prom-client's values only
 * when scraped. prom-client's observe() validates the label names, sorts and hashes the label set and
 * allocates a closure on every call, a measurable part of a /whoIAm (docs/performance.md, "Metrics and
 * request log cost"). Here a request costs one
 * string key, one Map lookup and a walk over 13 bounds. The exposition is the same as a Histogram's
 * (it is one, for the registry and its type), built from the tallies.
 */
export class RequestHistogram extends Histogram<ExportedLabel> {
  private readonly bounds: number[];
  private readonly series = new Map<string, Series>();

  constructor(configuration: HistogramConfiguration<Label> & { buckets: number[] }) {
    super(configuration);
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
  }

  /** One request: its route template, method, status class and duration in seconds. */
  observeRequest(route: string, method: string, statusClass: string, seconds: number): void {
    const key = `${route} ${method} ${statusClass}`;
    let series = this.series.get(key);
    if (!series) {
      series = { labels: { route, method, status_class: statusClass }, counts: new Float64Array(this.bounds.length + 1), sum: 0 };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]) bucket++;
    series.counts[bucket] += 1;
    series.sum += seconds;
  }

  // Set by prom-client's Metric constructor at run time; its typings leave them out.
  declare readonly name: string;
  declare readonly help: string;
  declare readonly type: Exported['type'];
  declare readonly aggregator: Exported['aggregator'];

  /** What the registry reads for the exposition (prom-client's Histogram has it too): built from the tallies. */
  async getForPromString(): Promise<Exported> {
    const { name, help, type, aggregator } = this;
    const values: MetricValueWithName<ExportedLabel>[] = [];
    for (const { labels, counts, sum } of this.series.values()) {
      let cumulative = 0;
      for (let k = 0; k < this.bounds.length; k++) {
        cumulative += counts[k];
        values.push({ labels: { ...labels, le: this.bounds[k] }, value: cumulative, metricName: `${name}_bucket` });
      }
      const count = cumulative + counts[this.bounds.length];
      values.push({ labels: { ...labels, le: '+Inf' }, value: count, metricName: `${name}_bucket` });
      values.push({ labels, value: sum, metricName: `${name}_sum` });
      values.push({ labels, value: count, metricName: `${name}_count` });
    }
    return { name, help, type, aggregator, values, collect: () => undefined };
  }

  override async get(): Promise<Exported> {
    return this.getForPromString();
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() before this class's fields exist.
    this.series?.clear();
  }
}
