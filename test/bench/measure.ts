import autocannon from 'autocannon';

export interface Measurement {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** One autocannon run against a URL on loopback. */
export async function measure(label: string, options: autocannon.Options): Promise<Measurement> {
  const result = await autocannon({ connections: 50, duration: 10, ...options });
  return {
    label,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export function printTable(rows: Measurement[]): void {
  console.table(rows.map((row) => ({ ...row })));
}

/** "a is 83% of b": the ratio the issue's goal is stated in. */
export function printRatio(label: string, numerator: number, denominator: number, goal?: string): void {
  const percent = denominator === 0 ? 0 : Math.round((numerator / denominator) * 1000) / 10;
  console.log(`${label}: ${percent}%${goal ? ` (goal: ${goal})` : ''}`);
}
