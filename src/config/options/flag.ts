import { isIP } from 'node:net';
import { DurationSyntaxError, formatGoDuration, parseGoDuration } from '../go-duration';
import type { FeatureGates, FeatureName } from '../feature-gates';

/**
 * How a subsystem declares its options, as kube-apiserver's option structs do (AddFlags,
 * Validate, Complete): a table whose keys are the option fields, each a flag written once
 * (name, value type, default, help text) or a setting that is not a flag, or a nested table.
 * The options type is inferred from the table (OptionsOf), the defaults and the help are read
 * from it, and the subsystem's validate() checks how its values combine.
 */

/** The --help sections, as kube-apiserver groups its flags. */
export const SECTION = {
  serving: 'Secure serving flags:',
  storage: 'Storage flags:',
  authentication: 'Authentication flags:',
  authorization: 'Authorization flags:',
  admission: 'Admission flags:',
  generic: 'Generic flags:',
  featureGate: 'Feature gate flags:',
  apiEnablement: 'API enablement flags:',
  metrics: 'Metrics flags:',
  logging: 'Logs flags:',
  auditing: 'Auditing flags:',
} as const;

/** What a value parser is told besides the text: the flag, and its value so far (flags that add up). */
export interface FlagUse<T> {
  /** The flag's name, without dashes. */
  name: string;
  previous?: T;
}

/** A flag's value type, as pflag has them. */
export interface ValueType<T> {
  /** pflag's name for the value in --help (`int`, `duration`, `strings`); `bool` shows none. */
  type: string;
  /** Reads one use of the flag; throws an Error whose message says what is wrong with the value. */
  parse(value: string, use: FlagUse<T>): T;
  /** A default as --help prints it; undefined prints none (pflag leaves out zero values). */
  show?(value: T): string | undefined;
  /** pflag's slices and arrays: each use adds to the list, the first one replacing the default. */
  repeatable?: boolean;
}

export interface FlagSpec<T> extends ValueType<T> {
  /** The flag's name, without dashes. */
  name: string;
  /** pflag's one-letter shorthand (`v` for `-v`). */
  short?: string;
  usage: string;
  /** The --help section, when not the subsystem's. */
  section?: string;
  /** The value when the flag is not given; without one the option is unset (undefined). */
  default?: NoInfer<T>;
  /** The default as --help prints it, when not as the value type shows it; null prints none. */
  shown?: string | null;
  /** An environment variable read when the flag is not given. */
  env?: string;
}

const FLAG = Symbol('flag');
const SETTING = Symbol('setting');

/** A declared flag; `Unset` tells whether its option may be undefined (no default). */
export interface Flag<T, Unset extends boolean> extends FlagSpec<T> {
  readonly [FLAG]: Unset;
}

export function flag<T>(spec: FlagSpec<T> & { default: NoInfer<T> }): Flag<T, false>;
export function flag<T>(spec: FlagSpec<T>): Flag<T, true>;
export function flag<T>(spec: FlagSpec<T>): Flag<T, boolean> {
  return { ...spec, [FLAG]: !('default' in spec) };
}

/** An option that is not a flag (tests and benchmarks set it): its value when they do not. */
export interface Setting<T> {
  readonly [SETTING]: true;
  readonly value: T;
}

export function setting<T>(value: T): Setting<T> {
  return { [SETTING]: true, value };
}

export type AnyFlag = Flag<unknown, boolean>;
export type Entry = AnyFlag | Setting<unknown> | Table;
export interface Table {
  readonly [field: string]: Entry;
}

type ValueOf<E> = E extends Flag<infer T, boolean> ? T : E extends Setting<infer T> ? T : E extends Table ? OptionsOf<E> : never;
type Unset<E> = E extends Flag<unknown, true> ? true : false;

/** The options a table declares: a field for each entry, optional for a flag without a default. */
export type OptionsOf<T extends Table> = Simplify<
  { readonly [K in keyof T as Unset<T[K]> extends true ? never : K]: ValueOf<T[K]> } & { readonly [K in keyof T as Unset<T[K]> extends true ? K : never]?: ValueOf<T[K]> }
>;

export type Simplify<T> = { [K in keyof T]: T[K] } & {};

const isFlag = (entry: Entry): entry is AnyFlag => FLAG in entry;
const isSetting = (entry: Entry): entry is Setting<unknown> => SETTING in entry;

/** Every flag of a table, in the order declared (the order of --help). */
export function flagsOf(table: Table): AnyFlag[] {
  return Object.values(table).flatMap((entry) => (isFlag(entry) ? [entry] : isSetting(entry) ? [] : flagsOf(entry)));
}

/** The options of a table with each flag's value as `valueOf` gives it; settings keep theirs. */
export function optionsOf<T extends Table>(table: T, valueOf: (flag: AnyFlag) => unknown): OptionsOf<T> {
  const entries = Object.entries(table).map(([field, entry]) => [field, isFlag(entry) ? valueOf(entry) : isSetting(entry) ? entry.value : optionsOf(entry, valueOf)]);
  return Object.fromEntries(entries) as OptionsOf<T>;
}

/** A table's options as declared: every default. */
export function defaultsOf<T extends Table>(table: T): OptionsOf<T> {
  return optionsOf(table, (flag) => flag.default);
}

/** A default as --help prints it (none: undefined). */
export function shownDefault(flag: AnyFlag): string | undefined {
  if (flag.shown !== undefined) return flag.shown ?? undefined;
  return 'default' in flag && flag.show ? flag.show(flag.default) : undefined;
}

/**
 * A bad combination of values (a value alone is checked when it is read), in kube's words,
 * with the flags it is about: a flag whose value could not be read is reported for that alone.
 */
export interface FlagProblem {
  readonly message: string;
  readonly flags: readonly string[];
}

export function problem(message: string, ...flags: string[]): FlagProblem {
  return { message, flags };
}

/** What validate() is told besides the subsystem's options. */
export interface ValidationContext {
  /** Whether the flag (its name, without dashes) is on the command line, as kube's Changed. */
  given(name: string): boolean;
  featureGates: FeatureGates;
}

/** A configuration file flag that stands for other flags, as kube's --authentication-config and --authorization-config. */
export interface ReplacingFile {
  flag: string;
  /** The feature gate it needs, and what is said when that is off. */
  gate: FeatureName;
  gateOff: string;
  /** The flags it stands for, and what is said when one is given too. */
  replaces: readonly string[];
  together: string;
}

/** kube's checks of such a file given: its gate is on, and none of the flags it stands for is given. */
export function replacingFileProblems(file: ReplacingFile, { given, featureGates }: ValidationContext): FlagProblem[] {
  const problems: FlagProblem[] = [];
  if (!featureGates.enabled(file.gate)) problems.push(problem(file.gateOff, file.flag, 'feature-gates'));
  if (file.replaces.some((name) => given(name))) problems.push(problem(file.together, file.flag, ...file.replaces));
  return problems;
}

/** A subsystem's options: kube's XxxOptions with its AddFlags, Validate and Complete. */
export interface SubsystemOptions<T extends Table> {
  /** The --help section of its flags (a flag may name another). */
  readonly section: string;
  readonly flags: T;
  /** kube's Validate: every problem with how the values combine. */
  validate?(options: OptionsOf<T>, context: ValidationContext): FlagProblem[];
  /** kube's Complete: values that follow from others, derived once before the options are frozen. */
  complete?(options: OptionsOf<T>): OptionsOf<T>;
}

export function subsystem<T extends Table>(options: SubsystemOptions<T>): SubsystemOptions<T> {
  return options;
}

// Value types. Each parser throws an Error whose message says what is wrong with the value, in
// pflag's (Go's) words; the loader adds the flag's name.

export function commaList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

const showNonZero = (n: number): string | undefined => (n === 0 ? undefined : String(n));
const showList = (list: readonly string[]): string | undefined => (list.length ? `[${list.join(',')}]` : undefined);

/** pflag's IntVar (strconv.ParseInt), within bounds. */
export function int(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): ValueType<number> {
  return {
    type: 'int',
    parse(value) {
      if (!/^[-+]?\d+$/.test(value)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
      const n = Number(value);
      if (n < min || n > max) throw new Error(`must be between ${min} and ${max}, inclusive`);
      return n;
    },
    show: showNonZero,
  };
}

/** An int kube refuses below zero, in the words `refusal` gives (`flag` with its dashes). */
export function nonNegativeInt(refusal: (flag: string, n: number) => string): ValueType<number> {
  const any = int();
  return {
    ...any,
    parse(value, use) {
      const n = any.parse(value, use);
      if (n < 0) throw new Error(refusal(`--${use.name}`, n));
      return n;
    },
  };
}

/** pflag's Float32Var (strconv.ParseFloat). */
export const float32: ValueType<number> = {
  type: 'float32',
  parse(value) {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`);
    return n;
  },
  show: showNonZero,
};

/** pflag's BoolVar: `--flag` alone is true; values as Go's strconv.ParseBool reads them. */
export const bool: ValueType<boolean> = {
  type: 'bool',
  parse(value) {
    if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
    if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
    throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  },
  show: (value) => (value ? 'true' : undefined),
};

/** Go duration text (`5m`, `30s`, `0`) in milliseconds; not negative. */
function goDuration(value: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    if (err instanceof DurationSyntaxError) throw new Error(err.message);
    throw err;
  }
  if (ms < 0) throw new Error(`${JSON.stringify(value)} must not be negative`);
  return ms;
}

/** pflag's DurationVar, here in milliseconds; --help prints it as Go does, zero too (`0s`). */
export const duration: ValueType<number> = { type: 'duration', parse: goDuration, show: formatGoDuration };

/** pflag's DurationVar, here in seconds. */
export const durationSeconds: ValueType<number> = { type: 'duration', parse: (value) => goDuration(value) / 1000, show: (seconds) => formatGoDuration(seconds * 1000) };

/** pflag's StringVar, read by `parse`; --help quotes a default that is not empty. */
export function text<T extends string>(parse: (value: string, use: FlagUse<T>) => T): ValueType<T> {
  return { type: 'string', parse, show: (value) => (value === '' ? undefined : JSON.stringify(value)) };
}

/** Any string. */
export const anyText = text((value) => value);

/** A file path (or another value that names something): an empty value is a mistake, not "unset". */
export function nonEmpty(value: string): string {
  if (value === '') throw new Error('must not be empty');
  return value;
}

export const path = text(nonEmpty);

/** pflag's IPVar; a host name too, resolved when the configuration is loaded. */
export const ip: ValueType<string> = {
  type: 'ip',
  parse(value) {
    if (value !== '' && (isIP(value) || /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/.test(value))) return value;
    throw new Error(`failed to parse IP: ${JSON.stringify(value)}`);
  },
  show: (value) => value,
};

/** pflag's StringSliceVar: comma-separated values (read by `parse`), adding up over uses. */
export function strings(parse: (value: string, use: FlagUse<string[]>) => string[] = commaList): ValueType<string[]> {
  return { type: 'strings', parse, show: showList, repeatable: true };
}

/** pflag's StringArrayVar: one value (read by `parse`) a use, adding up over uses. */
export function stringArray(parse: (value: string) => string): ValueType<string[]> {
  return { type: 'stringArray', parse: (value) => [parse(value)], show: showList, repeatable: true };
}
