/**
 * Go's time.Duration text, as metav1.Duration reads and writes it in configuration files:
 * `300ms`, `1.5h`, `2h45m`, `-30s`, `0` (units ns, us/µs, ms, s, m, h).
 */

export class DurationSyntaxError extends Error {}

const UNIT_NANOS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** time.ParseDuration, in milliseconds (fractions of a millisecond kept). */
export function parseGoDuration(text: string): number {
  const invalid = () => new DurationSyntaxError(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest[0] === '-' ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let nanos = 0;
  while (rest) {
    const m = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    if (!m[1] && !m[2]) throw invalid();
    rest = rest.slice(m[0].length);
    const unit = /^[a-zµμ]+/.exec(rest)?.[0] ?? '';
    if (!unit) throw new DurationSyntaxError(`time: missing unit in duration ${JSON.stringify(text)}`);
    if (!(unit in UNIT_NANOS)) throw new DurationSyntaxError(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    rest = rest.slice(unit.length);
    nanos += Number(`${m[1] || '0'}.${m[2] || '0'}`) * UNIT_NANOS[unit];
  }
  return (sign * nanos) / 1e6;
}

function trimFraction(value: number): string {
  return value.toFixed(9).replace(/\.?0+$/, '');
}

/** time.Duration.String(): `5m0s`, `30s`, `1h0m0s`, `1.5s`, `500ms`, `0s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const negative = ms < 0;
  const abs = Math.abs(ms);
  let text: string;
  if (abs < 1) {
    const nanos = Math.round(abs * 1e6);
    text = nanos < 1000 ? `${nanos}ns` : `${trimFraction(nanos / 1000)}µs`;
  } else if (abs < 1000) text = `${trimFraction(abs)}ms`;
  else {
    const totalSeconds = abs / 1000;
    const hours = Math.floor(totalSeconds / 3600);
    const minutes = Math.floor((totalSeconds - hours * 3600) / 60);
    const seconds = totalSeconds - hours * 3600 - minutes * 60;
    text = `${trimFraction(seconds)}s`;
    if (hours > 0) text = `${hours}h${minutes}m${text}`;
    else if (minutes > 0) text = `${minutes}m${text}`;
  }
  return negative ? `-${text}` : text;
}
