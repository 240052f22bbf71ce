import { Command, CommanderError, Option } from 'commander';
import { AnyFlag, FlagProblem, optionsOf, SubsystemOptions, Table, ValidationContext } from '../options/flag';
import { frozenOptions, ServerOptions, serverOptionsOf, SUBSYSTEMS } from '../options';
import { COMMAND, helpText, listed } from './help';

/**
 * A bad command line or configuration: main prints each problem on a line of its own and
 * exits 1. A problem names its flag, in kube's wording where kube has one.
 */
export class FlagError extends Error {
  /** Every problem found, one line each. */
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.problems = problems;
  }

  /** A problem with what a flag names (a file's content, an address): `--flag: problem`. */
  static about(flag: string, problem: string): FlagError {
    return new FlagError(`${flag}: ${problem}`);
  }

  /** Several problems reported at once; the message has a line for each. */
  static all(problems: readonly string[]): FlagError {
    return new FlagError(problems.join('\n'), problems);
  }
}

/** `--help`: main prints the text and exits 0. */
export class HelpRequested extends Error {
  constructor(readonly helpText: string) {
    super('help requested');
  }
}

/** pflag's name of a flag in its messages: `--name`, or `-v, --v` with a shorthand. */
const label = (flag: AnyFlag): string => `${flag.short ? `-${flag.short}, ` : ''}--${flag.name}`;

/**
 * A commander option for a flag. A bad value is recorded in pflag's words, naming the flag,
 * and the flag keeps its earlier value, so that the rest of the command line is still read.
 */
function option(flag: AnyFlag, bad: Map<string, string>): Option {
  let used = false;
  const term = label(flag);
  const option = new Option(flag.type === 'bool' ? `${term} [bool]` : `${term} <${flag.type}>`).argParser((value: string, previous: unknown) => {
    try {
      if (!flag.repeatable) return flag.parse(value, { name: flag.name, previous: previous === flag.default ? undefined : previous });
      const parsed = flag.parse(value, { name: flag.name }) as unknown[];
      const base = used ? (previous as unknown[]) : [];
      used = true;
      return [...base, ...parsed];
    } catch (err) {
      if (!bad.has(flag.name)) bad.set(flag.name, `invalid argument ${JSON.stringify(value)} for "${label(flag)}" flag: ${(err as Error).message}`);
      return previous;
    }
  });
  return 'default' in flag ? option.default(flag.default) : option;
}

/** Commander's own errors, in kube's (cobra and pflag) words. */
function flagErrorOf(err: CommanderError, argv: string[]): string {
  const named = /'(--[\w-]+)/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'commander.unknownOption':
      return `unknown flag: ${named}`;
    case 'commander.optionMissingArgument':
      return `flag needs an argument: ${named}`;
    case 'commander.excessArguments':
      return `"${COMMAND}" does not take any arguments, got ${JSON.stringify(argv.filter((a) => !a.startsWith('-')))}`;
    default:
      return err.message.replace(/^error: /, '');
  }
}

/**
 * Reads kube-apiserver style flags into ServerOptions: every flag's value, then each
 * subsystem's check of how its values combine (what the files they name contain is checked
 * when the configuration is loaded), then the values that follow from others. Every problem is
 * reported at once, a line each, in a FlagError; `--help` throws HelpRequested. The options
 * are frozen.
 */
export function parseServerFlags(argv: string[], env: NodeJS.ProcessEnv): ServerOptions {
  const flags = listed();
  if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested(helpText(flags));
  const bad = new Map<string, string>();
  const cmd = new Command(COMMAND).exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined }).helpOption(false).allowExcessArguments(false);
  const declared = new Map(flags.map(({ flag }) => [flag.name, option(flag, bad)]));
  for (const o of declared.values()) cmd.addOption(o);
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    // The command line could not be read to its end: what was read so far, and why not.
    if (err instanceof CommanderError) throw FlagError.all([...bad.values(), flagErrorOf(err, argv)]);
    throw err;
  }

  const attribute = (name: string) => declared.get(name)!.attributeName();
  const valueOf = (flag: AnyFlag): unknown => cmd.getOptionValue(attribute(flag.name)) ?? (flag.env ? env[flag.env] || undefined : undefined);
  const parts = SUBSYSTEMS.map((s: SubsystemOptions<Table>) => ({ subsystem: s, options: optionsOf(s.flags, valueOf) }));
  const context: ValidationContext = {
    given: (name) => cmd.getOptionValueSource(attribute(name)) === 'cli',
    featureGates: serverOptionsOf(parts.map((p) => p.options)).featureGates,
  };
  // A combination involving a flag whose value could not be read is not judged: that flag is reported.
  const judged = (p: FlagProblem) => !p.flags.some((name) => bad.has(name));
  const problems = [...bad.values(), ...parts.flatMap((p) => (p.subsystem.validate?.(p.options, context) ?? []).filter(judged).map((found) => found.message))];
  if (problems.length) throw FlagError.all(problems);
  const completed = parts.map((p) => p.subsystem.complete?.(p.options) ?? p.options);
  return frozenOptions(serverOptionsOf(completed));
}
