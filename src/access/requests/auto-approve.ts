import { CelCompileError, CelEnvironment, CelEvaluationError, CelProgram } from '../../cel';
import { loadCelLibrary } from '../../cel/cel-library';
import { AccessRequest } from './access-request-types';
import { parseGoDuration } from '../../config/go-duration';

/** One evaluation of a condition may spend this much (kube's per-call limit is 1,000,000; requests are small). */
const AUTO_APPROVE_COST_LIMIT = 100_000;
const AUTO_APPROVE_TIME_LIMIT_MS = 100;

let environment: CelEnvironment | undefined;

/** Loads the CEL library once; validation and evaluation are synchronous afterwards. */
export async function loadAutoApproveEnvironment(): Promise<void> {
  await loadCelLibrary();
  environment ??= CelEnvironment.createSync({
    variables: {
      request: {
        schema: {
          requester: 'string',
          groups: 'list<string>',
          roleKind: 'string',
          roleName: 'string',
          namespace: 'string',
          durationSeconds: 'int',
          justification: 'string',
        },
      },
    },
  });
}

function env(): CelEnvironment {
  if (!environment) throw new Error('the autoApprove CEL environment is not loaded');
  return environment;
}

/** The compile error of an autoApprove expression, or undefined when it compiles to a bool. */
export function autoApproveCompileError(expression: string): string | undefined {
  try {
    env().compile(expression, { returnTypes: ['bool'] });
    return undefined;
  } catch (err) {
    if (err instanceof CelCompileError) return err.detail;
    throw err;
  }
}

/** Compiled expressions by text; policies are few, but the cache is bounded all the same. */
const compiled = new Map<string, CelProgram>();
const MAX_COMPILED = 1000;

/** The `request` variable: what the expression may read of the request. */
export function autoApproveVariable(request: AccessRequest): Record<string, unknown> {
  const requester = request.spec.requester;
  return {
    requester: requester?.username ?? '',
    groups: requester?.groups ?? [],
    roleKind: request.spec.roleRef.kind,
    roleName: request.spec.roleRef.name,
    namespace: request.metadata.namespace ?? '',
    durationSeconds: BigInt(Math.floor(parseGoDuration(request.spec.duration) / 1000)),
    justification: request.spec.justification ?? '',
  };
}

/**
 * Whether every condition holds. An expression that fails (cost limit, runtime error)
 * counts as false: a failure never approves.
 */
export function autoApproves(expressions: string[], request: AccessRequest): { approved: boolean; error?: string } {
  if (!expressions.length) return { approved: false };
  const variables = { request: autoApproveVariable(request) };
  for (const expression of expressions) {
    try {
      let program = compiled.get(expression);
      if (!program) {
        if (compiled.size >= MAX_COMPILED) compiled.clear();
        compiled.set(expression, (program = env().compile(expression, { returnTypes: ['bool'] })));
      }
      if (program.evaluate(variables, { costLimit: AUTO_APPROVE_COST_LIMIT, timeLimitMs: AUTO_APPROVE_TIME_LIMIT_MS }) !== true) return { approved: false };
    } catch (err) {
      if (err instanceof CelEvaluationError || err instanceof CelCompileError) return { approved: false, error: `${expression}: ${err.message}` };
      throw err;
    }
  }
  return { approved: true };
}
