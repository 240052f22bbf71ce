import { CelCompileError, CelEnvironment, CelEvaluationError, CelProgram } from '../../cel';
import { UserInfo } from '../../apimachinery/user-info';

/**
 * The expression language of the authentication configuration (kube's authentication/cel):
 * claim expressions see `claims` (the token's payload, dynamic), user validation rules see
 * `user` (the mapped identity). kube's optional library is on (`claims.?groups.orValue([])`).
 */
export interface AuthenticationEnvironments {
  claims: CelEnvironment;
  user: CelEnvironment;
}

let environments: Promise<AuthenticationEnvironments> | undefined;

export function authenticationEnvironments(): Promise<AuthenticationEnvironments> {
  environments ??= Promise.all([
    CelEnvironment.create({ variables: { claims: 'map<string, dyn>' }, optionalTypes: true }),
    CelEnvironment.create({
      variables: { user: { schema: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' } } },
      optionalTypes: true,
    }),
  ]).then(([claims, user]) => ({ claims, user }));
  return environments;
}

/**
 * Compiles one expression; with `returnType` its checked type must be exactly that (kube: a
 * validation rule reading a dynamic claim must compare it, `claims.admin == true`).
 */
export function compileAuthenticationExpression(env: CelEnvironment, expression: string, returnType?: 'bool'): CelProgram {
  const program = env.compile(expression);
  if (returnType && program.outputType !== returnType) throw new CelCompileError('Invalid', `must evaluate to ${returnType}`);
  return program;
}

interface SyntaxNode {
  op: string;
  args: unknown;
}

/** Whether an expression selects `claims.<field>` (or `claims.?<field>`), as kube's email-verified check looks. */
export function selectsClaim(program: CelProgram, field: string): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown): boolean => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return false;
    seen.add(value);
    if (Array.isArray(value)) return value.some(visit);
    const node = value as SyntaxNode;
    if ((node.op === '.' || node.op === '.?') && Array.isArray(node.args)) {
      const [operand, name] = node.args as [SyntaxNode, unknown];
      if (operand?.op === 'id' && operand.args === 'claims' && name === field) return true;
    }
    return 'args' in node && visit(node.args);
  };
  return visit(program.ast);
}

/** kube's per-evaluation cost limit for authentication expressions (celconfig.PerCallLimit). */
const EVALUATION_BUDGET = { costLimit: 1_000_000, timeLimitMs: 100 };

/** Evaluates within the budget; a failure (including the budget) is a CelEvaluationError. */
export function evaluateExpression(program: CelProgram, variables: Record<string, unknown>): unknown {
  return program.evaluate(variables, EVALUATION_BUDGET);
}

/** A CEL value as a list of strings: a string is a list of one; null and '' are none (kube's convertCELValueToStringList). */
export function stringList(value: unknown, what: string): string[] {
  if (value === null || value === undefined || value === '') return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new CelEvaluationError(`${what} expression must return a string or a list of strings`);
}

/** The `user` variable of user validation rules. */
export function userVariable(user: UserInfo): Record<string, unknown> {
  return { username: user.username, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} };
}
