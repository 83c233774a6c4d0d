/**
 * Test support: a scrape read with a real Prometheus text-format parser
 * (`prom2javascript`), and the one sample of a family whose labels are the
 * ones given. That parser reads no NaN, which the format allows and
 * prom-client writes (as `Nan`) for an event-loop gauge with no sample yet:
 * such lines are set apart, by name, before the rest is parsed.
 */
import { getMetricsFromIterator, type PromMetric } from 'prom2javascript';

/** One sample: a counter's or gauge's value, or a histogram's buckets, count and sum. */
export interface Sample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value?: number;
  readonly buckets?: Readonly<Record<string, number>>;
  readonly count?: number;
  readonly sum?: number;
}

/** A sample line whose value is NaN, whatever the case (`NaN`, prom-client's `Nan`). */
const NAN_LINE = /^(\w+)(?:\{.*\})?\s+nan(?:\s+-?\d+)?\s*$/i;

export interface Scrape {
  /** The names of the samples whose value was NaN (left out of the families). */
  readonly nan: readonly string[];
  /** The family `name` (`counter`, `gauge`, `histogram`); throws when the scrape has none. */
  family(name: string): { readonly type: string; readonly help: string; readonly samples: readonly Sample[] };
  /** Whether the scrape has the family `name`. */
  has(name: string): boolean;
  /** The sample of `name` whose labels are exactly `labels`; throws when there is none. */
  sample(name: string, labels: Readonly<Record<string, string>>): Sample;
  /** A counter's or gauge's value. */
  value(name: string, labels: Readonly<Record<string, string>>): number;
}

function sameLabels(sample: Sample, labels: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(sample.labels);
  return keys.length === Object.keys(labels).length && keys.every((key) => sample.labels[key] === labels[key]);
}

/** `text` (a scrape's body) parsed. */
export async function readScrape(text: string): Promise<Scrape> {
  const lines = text.split('\n');
  const nan = lines.flatMap((line) => NAN_LINE.exec(line)?.[1] ?? []);
  const numeric = lines.filter((line) => !NAN_LINE.test(line));
  const families: Record<string, PromMetric> = await getMetricsFromIterator(numeric[Symbol.iterator]());
  const family = (name: string) => {
    const found = families[name];
    if (found === undefined) throw new Error(`the scrape has no ${name}`);
    return { type: found.type, help: found.help, samples: found.data as readonly Sample[] };
  };
  const sample = (name: string, labels: Readonly<Record<string, string>>) => {
    const { samples } = family(name);
    const found = samples.find((candidate) => sameLabels(candidate, labels));
    if (found === undefined) {
      const seen = samples.map((candidate) => JSON.stringify(candidate.labels));
      throw new Error(`${name} has no sample labelled ${JSON.stringify(labels)}; it has ${seen.join(', ')}`);
    }
    return found;
  };
  const value = (name: string, labels: Readonly<Record<string, string>>) => {
    const found = sample(name, labels).value;
    if (found === undefined) throw new Error(`${name} ${JSON.stringify(labels)} has no single value`);
    return found;
  };
  return { nan, family, has: (name) => families[name] !== undefined, sample, value };
}
