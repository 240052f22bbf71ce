import type { Environment, ParseResult } from '@marcbachmann/cel-js';
import { celLibrary, loadCelLibrary } from './cel-library';
import { CelBudgetExceededError, CostMeter, EvaluationBudget, metered } from './cost';
import { meterExpression } from './cost-instrumentation';
import { registerListFunctions } from './lists-library';
import { registerQuantityFunctions } from './quantity-library';
import { registerRegexFunctions } from './regex-library';
import { registerUrlFunctions } from './urls-library';
import { compileRegex, RegexSyntaxError } from './regex';

/** A CEL type as the library spells it: `string`, `list<string>`, `map<string, dyn>`, `kubernetes.URL`. */
export type CelTypeName = string;

/** An object type given field by field (nested objects allowed); fields not given do not exist. */
export interface CelObjectSchema {
  [field: string]: CelTypeName | CelObjectSchema;
}

/** A variable is a named type, or an object type described by its fields. */
export type CelVariableType = CelTypeName | { schema: CelObjectSchema };

export interface CelEnvironmentOptions {
  /** The variables expressions may use (e.g. `request`, or `claims` and `user`). */
  variables: Record<string, CelVariableType>;
  /** kube's optional library: `x.?f`, `optional.of(v)`, `.orValue(d)` (its authentication expressions have it). */
  optionalTypes?: boolean;
}

/** kube's cel.Error types: `Required` and `Invalid` become field errors, `Internal` a server fault. */
export type CelCompileErrorType = 'Required' | 'Invalid' | 'Internal';

export class CelCompileError extends Error {
  constructor(
    readonly type: CelCompileErrorType,
    readonly detail: string,
  ) {
    super(detail);
  }
}

export class CelEvaluationError extends Error {}

export interface CompileOptions {
  /** The types the expression may evaluate to (e.g. `['bool']`); any type when unset. */
  returnTypes?: CelTypeName[];
}

/** The library prints a source excerpt under its messages; the first line is the message itself. */
function headline(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0];
}

/** Node shapes needed to find constant regular expressions in a parsed expression. */
interface SyntaxNode {
  op: string;
  args: unknown;
}

const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

/**
 * A constant pattern that cannot compile fails the expression at compile time, as kube's
 * regex optimisation does, rather than at every evaluation.
 */
function checkConstantRegexes(root: unknown): void {
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    const node = value as SyntaxNode;
    if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args) && REGEX_FUNCTIONS.has(node.args[0] as string)) {
      const callArgs = (node.op === 'rcall' ? node.args[2] : node.args[1]) as SyntaxNode[] | undefined;
      const pattern = callArgs?.[node.op === 'rcall' ? 0 : 1];
      if (pattern?.op === 'value' && typeof pattern.args === 'string') {
        try {
          compileRegex(pattern.args);
        } catch (err) {
          if (err instanceof RegexSyntaxError) throw new CelCompileError('Invalid', `compilation failed: ${err.message}`);
          throw err;
        }
      }
    }
    if (Array.isArray(value)) value.forEach(visit);
    else if ('args' in node) visit(node.args);
  };
  visit(root);
}

/** One compiled expression: evaluate it many times, each run within a cost budget. */
export class CelProgram {
  constructor(
    readonly expression: string,
    /** The checked result type (`bool`, `string`, `list<string>`, ...). */
    readonly outputType: CelTypeName,
    private readonly parsed: ParseResult,
  ) {}

  /** The checked syntax tree (for callers that look at what an expression reads). */
  get ast(): unknown {
    return this.parsed.ast;
  }

  /** Evaluates with the given variables; any failure (including the budget) is a CelEvaluationError. */
  evaluate(variables: Record<string, unknown>, budget?: EvaluationBudget): unknown {
    const meter = CostMeter.for(budget);
    let result: unknown;
    try {
      result = metered(meter, (): unknown => this.parsed(variables));
    } catch (err) {
      if (err instanceof CelBudgetExceededError) throw new CelEvaluationError(err.message);
      throw new CelEvaluationError(headline(err));
    }
    if (meter.exceeded) throw new CelEvaluationError(meter.exceeded.message);
    return result;
  }
}

/**
 * A CEL environment: the standard library, kube's extension libraries (lists, regex, URLs,
 * quantities) and a fixed set of typed variables. Compile once, evaluate many times.
 * Creating one loads the CEL library, hence `create` is async; compiling and evaluating
 * are synchronous.
 */
export class CelEnvironment {
  private constructor(private readonly env: Environment) {}

  static async create(options: CelEnvironmentOptions): Promise<CelEnvironment> {
    const lib = await loadCelLibrary();
    return CelEnvironment.createLoaded(options, lib);
  }

  /** For callers that already awaited `loadCelLibrary()` and need a synchronous constructor. */
  static createSync(options: CelEnvironmentOptions): CelEnvironment {
    return CelEnvironment.createLoaded(options, celLibrary());
  }

  private static createLoaded(options: CelEnvironmentOptions, lib: ReturnType<typeof celLibrary>): CelEnvironment {
    const env = new lib.Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: options.optionalTypes ?? false });
    registerListFunctions(env, lib);
    registerRegexFunctions(env);
    registerUrlFunctions(env);
    registerQuantityFunctions(env);
    for (const [name, type] of Object.entries(options.variables)) {
      if (typeof type === 'string') env.registerVariable(name, type);
      else env.registerVariable({ name, schema: type.schema } as Parameters<Environment['registerVariable']>[0]);
    }
    return new CelEnvironment(env);
  }

  /** Parses and type-checks; throws CelCompileError with kube's wording. */
  compile(expression: string, options: CompileOptions = {}): CelProgram {
    let parsed: ParseResult;
    try {
      parsed = this.env.parse(expression);
    } catch (err) {
      throw new CelCompileError('Invalid', `compilation failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const checked = parsed.check();
    if (!checked.valid) throw new CelCompileError('Invalid', `compilation failed: ${checked.error?.message ?? 'type check failed'}`);
    const outputType = checked.type ?? 'dyn';
    const returnTypes = options.returnTypes;
    if (returnTypes && !returnTypes.includes(outputType)) {
      throw new CelCompileError(
        'Invalid',
        returnTypes.length === 1 ? `must evaluate to ${returnTypes[0]} but got ${outputType}` : `must evaluate to one of [${returnTypes.join(' ')}]`,
      );
    }
    checkConstantRegexes(parsed.ast);
    meterExpression(parsed.ast as unknown as object);
    return new CelProgram(expression, outputType, parsed);
  }
}
