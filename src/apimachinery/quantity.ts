/**
 * Kubernetes resource quantities (`100m`, `1.5Gi`, `2e3`) as CEL's `quantity()` sees them:
 * parsed exactly as kube's resource.ParseQuantity (same grammar, suffixes and errors), held
 * as an exact count of nano-units (kube rounds anything finer up to 1n and caps
 * binary-suffixed amounts at 2^63-1), compared and added exactly.
 */

const FORMAT_PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

export class QuantityParseError extends Error {}

const errFormatWrong = () => new QuantityParseError(`quantities must match the regular expression '${FORMAT_PATTERN}'`);
const errSuffix = () => new QuantityParseError("unable to parse quantity's suffix");
const errNumeric = () => new QuantityParseError('unable to parse numeric part of quantity');

const NANOS_PER_UNIT = 1_000_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const MAX_NANOS = MAX_INT64 * NANOS_PER_UNIT;
/** Decimal exponents beyond this would only build huge numbers; kube has no use for them either. */
const MAX_DECIMAL_SHIFT = 1000;

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

interface Scanned {
  negative: boolean;
  integerDigits: string;
  fractionDigits: string;
  suffix: string;
}

const isDigit = (c: string) => c >= '0' && c <= '9';

/** kube's parseQuantityString: sign, digits, optional fraction, then the suffix run. */
function scan(text: string): Scanned {
  let pos = 0;
  let negative = false;
  if (text[0] === '+' || text[0] === '-') {
    negative = text[0] === '-';
    pos = 1;
  }
  const numberStart = pos;
  let start = pos;
  while (pos < text.length && isDigit(text[pos])) pos++;
  const integerDigits = text.slice(start, pos) || '0';
  let fractionDigits = '';
  if (text[pos] === '.') {
    start = ++pos;
    while (pos < text.length && isDigit(text[pos])) pos++;
    fractionDigits = text.slice(start, pos);
  }
  // The number needs at least a digit or a point (`Mi` alone is not a quantity).
  if (pos === numberStart) throw errFormatWrong();
  const suffixStart = pos;
  while (pos < text.length && 'eEinumkKMGTP'.includes(text[pos])) pos++;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  while (pos < text.length && isDigit(text[pos])) pos++;
  if (pos < text.length) throw errFormatWrong();
  return { negative, integerDigits, fractionDigits, suffix: text.slice(suffixStart) };
}

/** The suffix as a base and an exponent (10^e or 2^e). */
function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number } {
  if (suffix in decimalSuffixes) return { base: 10, exponent: decimalSuffixes[suffix] };
  if (suffix in binarySuffixes) return { base: 2, exponent: binarySuffixes[suffix] };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (!Number.isSafeInteger(exponent)) throw errSuffix();
    return { base: 10, exponent };
  }
  throw errSuffix();
}

/** ceil(numerator / denominator) for non-negative values: kube rounds sub-nano amounts up. */
const divideRoundingUp = (numerator: bigint, denominator: bigint) => (numerator + denominator - 1n) / denominator;

export class Quantity {
  private constructor(
    /** The value in units of 10^-9. */
    readonly nanos: bigint,
  ) {}

  static parse(text: string): Quantity {
    if (text.length === 0) throw errFormatWrong();
    const scanned = scan(text);
    const { base, exponent } = interpretSuffix(scanned.suffix);
    const mantissa = BigInt(scanned.integerDigits + scanned.fractionDigits);
    let magnitude: bigint;
    if (mantissa === 0n) magnitude = 0n;
    else if (base === 2) {
      magnitude = divideRoundingUp(mantissa * (1n << BigInt(exponent)) * NANOS_PER_UNIT, 10n ** BigInt(scanned.fractionDigits.length));
      // kube caps binary-suffixed quantities at the largest int64.
      if (magnitude > MAX_NANOS) magnitude = MAX_NANOS;
    } else {
      const shift = 9 + exponent - scanned.fractionDigits.length;
      if (shift > MAX_DECIMAL_SHIFT) throw errNumeric();
      if (shift >= 0) magnitude = mantissa * 10n ** BigInt(shift);
      else if (-shift > scanned.integerDigits.length + scanned.fractionDigits.length + 1) magnitude = 1n;
      else magnitude = divideRoundingUp(mantissa, 10n ** BigInt(-shift));
    }
    return new Quantity(scanned.negative ? -magnitude : magnitude);
  }

  static isValid(text: string): boolean {
    try {
      Quantity.parse(text);
      return true;
    } catch (err) {
      if (err instanceof QuantityParseError) return false;
      throw err;
    }
  }

  static fromInteger(value: bigint): Quantity {
    return new Quantity(value * NANOS_PER_UNIT);
  }

  sign(): bigint {
    return this.nanos > 0n ? 1n : this.nanos < 0n ? -1n : 0n;
  }

  /** kube's AsInt64 succeeds: a whole number within int64. */
  isInteger(): boolean {
    if (this.nanos % NANOS_PER_UNIT !== 0n) return false;
    const units = this.nanos / NANOS_PER_UNIT;
    return units >= MIN_INT64 && units <= MAX_INT64;
  }

  /** The value as an int64, or undefined when it has a fraction or does not fit. */
  asInteger(): bigint | undefined {
    return this.isInteger() ? this.nanos / NANOS_PER_UNIT : undefined;
  }

  asApproximateFloat(): number {
    return Number(this.nanos) / 1e9;
  }

  add(other: Quantity): Quantity {
    return new Quantity(this.nanos + other.nanos);
  }

  sub(other: Quantity): Quantity {
    return new Quantity(this.nanos - other.nanos);
  }

  compareTo(other: Quantity): bigint {
    return this.nanos < other.nanos ? -1n : this.nanos > other.nanos ? 1n : 0n;
  }

  equals(other: Quantity): boolean {
    return this.nanos === other.nanos;
  }

  /** A canonical decimal form (`1500m`, `2`), for messages. */
  toString(): string {
    if (this.nanos % NANOS_PER_UNIT === 0n) return String(this.nanos / NANOS_PER_UNIT);
    for (const [suffix, divisor] of [['m', 1_000_000n], ['u', 1000n], ['n', 1n]] as const) {
      if (this.nanos % divisor === 0n) return `${this.nanos / divisor}${suffix}`;
    }
    return `${this.nanos}n`;
  }
}
