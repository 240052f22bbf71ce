import { CelEvaluationError, CelProgram } from '../../cel';
import { CelCompileError } from '../../cel';
import { LabelSelector as ParsedLabelSelector } from '../../apimachinery/selectors/label-selector';
import { UserInfo } from '../../apimachinery/user-info';
import { PolicyRule, Subject } from '../../apis/rbac/types';
import { AuthorizationAttributes, AuthorizationResult } from '../../authorization/authorizer';
import { ruleAllows } from '../../authorization/rbac/rule-matching';
import { fileSubject, SubjectKey, subjectKeysOf } from '../../authorization/rbac/subjects';
import { requestVariable } from '../../authorization/webhook/match-conditions';
import { reviewSpecFor } from '../../authorization/webhook/subject-access-review';
import { clusterRoleSelectorMatcher } from '../../rbac/aggregation/cluster-role-selector';
import { AccessGuardrail, GuardrailFailurePolicy } from './guardrail-types';

/** Compiles a condition into a program (throws CelCompileError). */
export type ConditionProgramCompiler = (expression: string) => CelProgram;

/** The labels of a namespace, as the namespace cache holds them (undefined: not known here). */
export type NamespaceLabels = (namespace: string) => Record<string, string> | undefined;

/** The verbs whose cluster-wide form (no namespace) reads or deletes in every namespace. */
const COLLECTION_VERBS = new Set(['list', 'watch', 'deletecollection']);

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function subjectKeys(subjects: unknown): Set<SubjectKey> {
  const keys = new Set<SubjectKey>();
  for (const s of Array.isArray(subjects) ? (subjects as Subject[]) : []) {
    for (const filing of fileSubject(s, '')) if (!filing.error) keys.add(filing.key);
  }
  return keys;
}

/** What the condition said: match, no match, or an error text. */
type ConditionOutcome = boolean | { error: string };

/**
 * One guardrail made ready to decide: its match as a PolicyRule read by RBAC's own matchers,
 * its subjects and exceptions as the subject keys RBAC files bindings under, its condition
 * compiled. A stored condition that no longer compiles fails as an evaluation error would.
 */
export class CompiledGuardrail {
  readonly name: string;
  readonly message: string;
  readonly failurePolicy: GuardrailFailurePolicy;
  /** Its match as a rule (read by the grant overlap check to pick the requests worth asking about). */
  readonly rule: PolicyRule;
  /** The namespaces it names (not those its selector matches). */
  readonly namespaces: ReadonlySet<string>;
  private readonly selector: ParsedLabelSelector | null;
  /** Whether it matches only some namespaces (by name or selector). */
  readonly restrictsNamespaces: boolean;
  /** Whether a namespace selector is among them. */
  readonly selectsNamespaces: boolean;
  /** null: everyone. */
  private readonly subjects: ReadonlySet<SubjectKey> | null;
  private readonly exceptions: ReadonlySet<SubjectKey>;
  private readonly program?: CelProgram;
  private readonly compileError?: string;

  constructor(readonly object: AccessGuardrail, compile: ConditionProgramCompiler) {
    const spec = object.spec ?? {};
    const match = spec.match ?? {};
    this.name = object.metadata?.name ?? '';
    this.message = typeof spec.message === 'string' ? spec.message : '';
    this.failurePolicy = spec.failurePolicy === 'NoOpinion' ? 'NoOpinion' : 'Deny';
    this.rule = {
      verbs: strings(match.verbs),
      apiGroups: strings(match.apiGroups),
      resources: strings(match.resources),
      resourceNames: strings(match.resourceNames),
      nonResourceURLs: strings(match.nonResourceURLs),
    };
    this.namespaces = new Set(strings(match.namespaces));
    this.selector = match.namespaceSelector ? clusterRoleSelectorMatcher(match.namespaceSelector) : null;
    // A selector kube could not convert matches no namespace by labels (never every namespace).
    this.restrictsNamespaces = this.namespaces.size > 0 || match.namespaceSelector !== undefined;
    this.selectsNamespaces = match.namespaceSelector !== undefined;
    this.subjects = Array.isArray(spec.subjects) && spec.subjects.length ? subjectKeys(spec.subjects) : null;
    this.exceptions = subjectKeys(spec.exceptions);
    if (typeof spec.condition === 'string' && spec.condition.trim()) {
      try {
        this.program = compile(spec.condition);
      } catch (err) {
        if (!(err instanceof CelCompileError)) throw err;
        this.compileError = `condition does not compile: ${err.detail}`;
      }
    }
  }

  /** Whether it applies to the caller: named by subjects (or subjects empty), and no exception names them. */
  appliesTo(user: UserInfo, keys: readonly SubjectKey[] = subjectKeysOf(user)): boolean {
    if (keys.some((k) => this.exceptions.has(k))) return false;
    return this.subjects === null || keys.some((k) => this.subjects!.has(k));
  }

  /** Whether the request is one it matches (before the condition). */
  matchesRequest(attrs: AuthorizationAttributes, namespaceLabels: NamespaceLabels): boolean {
    if (!ruleAllows(this.rule, attrs)) return false;
    if (!attrs.isResourceRequest || !this.restrictsNamespaces) return true;
    const ns = attrs.namespace;
    // A list, watch or deletecollection across all namespaces reaches the protected ones too.
    if (ns === '') return COLLECTION_VERBS.has(attrs.verb);
    if (this.namespaces.has(ns)) return true;
    return this.selector !== null && this.selector.matches(namespaceLabels(ns) ?? {});
  }

  private condition(request: () => Record<string, unknown>): ConditionOutcome {
    if (this.compileError) return { error: this.compileError };
    if (!this.program) return true;
    try {
      const value = this.program.evaluate({ request: request() });
      return typeof value === 'boolean' ? value : { error: `condition evaluated to ${typeof value}, not bool` };
    } catch (err) {
      if (!(err instanceof CelEvaluationError)) throw err;
      return { error: `condition '${this.program.expression}' failed: ${err.message}` };
    }
  }

  /**
   * Its answer for a request it applies to and matches: Deny when the condition holds (or
   * fails under failurePolicy Deny), NoOpinion otherwise (with the error under NoOpinion).
   */
  decide(request: () => Record<string, unknown>): AuthorizationResult {
    const outcome = this.condition(request);
    if (outcome === true) return { decision: 'Deny', reason: this.reason(), guardrail: this.name };
    if (outcome === false) return { decision: 'NoOpinion', reason: '' };
    const evaluationError = `access guardrail "${this.name}": ${outcome.error}`;
    if (this.failurePolicy === 'NoOpinion') return { decision: 'NoOpinion', reason: '', evaluationError };
    return { decision: 'Deny', reason: `${this.reason()} (its condition could not be evaluated; failurePolicy Deny)`, evaluationError, guardrail: this.name };
  }

  private reason(): string {
    return this.message ? `access guardrail "${this.name}": ${this.message}` : `denied by access guardrail "${this.name}"`;
  }
}

/**
 * The guardrails' joint answer: the first (by name) that denies decides; otherwise no
 * opinion, carrying the errors of guardrails whose failure policy let them pass.
 */
export function decideWithGuardrails(
  guardrails: readonly CompiledGuardrail[],
  attrs: AuthorizationAttributes,
  namespaceLabels: NamespaceLabels,
  withSelectors: boolean,
): AuthorizationResult {
  let errors: string[] | undefined;
  // Made once per decision, and only when some guardrail gets that far.
  let keys: SubjectKey[] | undefined;
  let variable: Record<string, unknown> | undefined;
  const request = () => (variable ??= requestVariable(reviewSpecFor(attrs), withSelectors));
  for (const guardrail of guardrails) {
    if (!guardrail.matchesRequest(attrs, namespaceLabels) || !guardrail.appliesTo(attrs.user, (keys ??= subjectKeysOf(attrs.user)))) continue;
    const result = guardrail.decide(request);
    if (result.decision === 'Deny') return result;
    if (result.evaluationError) (errors ??= []).push(result.evaluationError);
  }
  return errors ? { decision: 'NoOpinion', reason: '', evaluationError: errors.join('; ') } : { decision: 'NoOpinion', reason: '' };
}
