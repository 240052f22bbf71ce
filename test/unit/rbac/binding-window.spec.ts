import { AccessAnalyzer } from '../../../src/access/access-analyzer';
import { AccessIndex } from '../../../src/access/access-index';
import { Clock } from '../../../src/apimachinery/clock';
import { fieldErrorMessage } from '../../../src/apimachinery/field-errors';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import {
  bindingWindow,
  parseRfc3339,
  VALID_FROM_ANNOTATION,
  VALID_UNTIL_ANNOTATION,
  validateBindingWindow,
  windowState,
} from '../../../src/apis/rbac/binding-window';
import { validateClusterRoleBinding, validateRoleBinding, validateRoleBindingUpdate } from '../../../src/rbac/kinds/rbac-validation';
import { RoleBinding } from '../../../src/apis/rbac/types';
import { clusterRole, clusterRoleBinding, indexOf, req, roleBinding, U, user } from '../authorization/rbac-fixtures';

/** Time-bound bindings: the window annotations, their validation, and decisions against an injected clock. */

const at = (text: string) => Date.parse(text);

/** A clock tests set by hand. */
class ManualClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
  set(text: string): void {
    this.ms = at(text);
  }
}

const withWindow = <T extends { metadata: Record<string, unknown> }>(binding: T, window: { from?: string; until?: string }): T => ({
  ...binding,
  metadata: {
    ...binding.metadata,
    annotations: {
      ...(window.from !== undefined ? { [VALID_FROM_ANNOTATION]: window.from } : {}),
      ...(window.until !== undefined ? { [VALID_UNTIL_ANNOTATION]: window.until } : {}),
    },
  },
});

describe('RFC 3339 timestamps', () => {
  it('reads UTC, offsets and fractions to the same instant', () => {
    expect(parseRfc3339('2026-03-01T10:00:00Z')).toBe(at('2026-03-01T10:00:00Z'));
    expect(parseRfc3339('2026-03-01T12:00:00+02:00')).toBe(at('2026-03-01T10:00:00Z'));
    expect(parseRfc3339('2026-03-01T05:30:00-04:30')).toBe(at('2026-03-01T10:00:00Z'));
    expect(parseRfc3339('2026-03-01T10:00:00.250Z')).toBe(at('2026-03-01T10:00:00.250Z'));
    expect(parseRfc3339('0099-01-01T00:00:00Z')).toBe(at('0099-01-01T00:00:00Z'));
  });

  // Lower-case t and z are refused, as Go's time.RFC3339 layout (which kube parses with) refuses them.
  it.each(['2026-03-01', '2026-03-01 10:00:00Z', '2026-03-01T10:00:00', '2026-02-30T10:00:00Z', '2026-03-01T24:00:00Z', '2026-03-01T10:00:00+2:00', '2026-03-01t10:00:00z', 'tomorrow', ''])(
    'refuses %j',
    (text) => expect(parseRfc3339(text)).toBeUndefined(),
  );
});

describe('the window check', () => {
  const window = bindingWindow(withWindow(roleBinding('ns', 'b', 'Role', 'r', []), { from: '2026-03-01T12:00:00+02:00', until: '2026-03-01T11:00:00Z' }));

  it('is inclusive at valid-from and exclusive at valid-until, to the second', () => {
    expect(windowState(window, at('2026-03-01T09:59:59Z'))).toBe('not-yet-valid');
    expect(windowState(window, at('2026-03-01T10:00:00Z'))).toBe('active');
    expect(windowState(window, at('2026-03-01T10:59:59Z'))).toBe('active');
    expect(windowState(window, at('2026-03-01T11:00:00Z'))).toBe('expired');
  });

  it('leaves a side without an annotation open, and closes one that does not parse', () => {
    expect(windowState(bindingWindow(withWindow(roleBinding('ns', 'b', 'Role', 'r', []), { until: '2026-03-01T11:00:00Z' })), 0)).toBe('active');
    expect(windowState(bindingWindow(roleBinding('ns', 'b', 'Role', 'r', [])), at('9999-01-01T00:00:00Z'))).toBe('active');
    expect(windowState(bindingWindow(withWindow(roleBinding('ns', 'b', 'Role', 'r', []), { from: 'soon' })), at('9999-01-01T00:00:00Z'))).toBe('not-yet-valid');
    expect(windowState(bindingWindow(withWindow(roleBinding('ns', 'b', 'Role', 'r', []), { until: 'later' })), 0)).toBe('expired');
  });
});

describe('validation of the window annotations', () => {
  const messages = (binding: RoleBinding) => validateRoleBinding(binding).map(fieldErrorMessage);
  const binding = (window: { from?: string; until?: string }) => withWindow(roleBinding('ns', 'b', 'Role', 'r', [U('alice')]), window) as RoleBinding;

  it('accepts RFC 3339 timestamps in any offset, valid-from before valid-until', () => {
    expect(messages(binding({ from: '2026-03-01T12:00:00+02:00', until: '2026-03-01T10:00:01Z' }))).toEqual([]);
    expect(messages(binding({ until: '2026-03-01T10:00:00.5Z' }))).toEqual([]);
  });

  it('names the annotation whose value is not RFC 3339', () => {
    expect(messages(binding({ from: 'yesterday', until: '2026-03-01' }))).toEqual([
      `metadata.annotations[${VALID_FROM_ANNOTATION}]: Invalid value: "yesterday": must be an RFC 3339 timestamp (e.g. 2006-01-02T15:04:05Z)`,
      `metadata.annotations[${VALID_UNTIL_ANNOTATION}]: Invalid value: "2026-03-01": must be an RFC 3339 timestamp (e.g. 2006-01-02T15:04:05Z)`,
    ]);
  });

  it('refuses valid-from not before valid-until, comparing instants across offsets', () => {
    const same = messages(binding({ from: '2026-03-01T12:00:00+02:00', until: '2026-03-01T10:00:00Z' }));
    expect(same).toEqual([`metadata.annotations[${VALID_UNTIL_ANNOTATION}]: Invalid value: "2026-03-01T10:00:00Z": must be after ${VALID_FROM_ANNOTATION}`]);
    expect(validateBindingWindow(binding({ from: '2026-03-01T10:00:01Z', until: '2026-03-01T10:00:00Z' }))).toHaveLength(1);
  });

  it('on update, checks a changed window and lets one stored before the check stay as it is', () => {
    const stored = binding({ until: 'garbage' });
    const relabelled = { ...stored, subjects: [U('bob')] } as RoleBinding;
    expect(validateRoleBindingUpdate(relabelled, stored)).toEqual([]);
    expect(validateRoleBindingUpdate(binding({ until: 'still garbage' }), stored).map((e) => e.field)).toEqual([`metadata.annotations[${VALID_UNTIL_ANNOTATION}]`]);
    expect(validateRoleBindingUpdate(binding({ from: 'x', until: 'garbage' }), stored).map((e) => e.field)).toEqual([
      `metadata.annotations[${VALID_FROM_ANNOTATION}]`,
      `metadata.annotations[${VALID_UNTIL_ANNOTATION}]`,
    ]);
    expect(validateRoleBindingUpdate(binding({ until: 'soon' }), binding({}))).toHaveLength(1);
  });

  it('applies to ClusterRoleBindings too', () => {
    const crb = withWindow(clusterRoleBinding('c', 'view', [U('alice')]), { until: 'never' }) as RoleBinding;
    expect(validateClusterRoleBinding(crb).map((e) => e.field)).toEqual([`metadata.annotations[${VALID_UNTIL_ANNOTATION}]`]);
  });
});

describe('decisions against the injected clock', () => {
  const clock = new ManualClock(at('2026-03-01T09:00:00Z'));
  const policy = indexOf(
    {
      clusterRoles: [clusterRole('pod-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
      clusterRoleBindings: [withWindow(clusterRoleBinding('temporary', 'pod-reader', [U('alice')]), { from: '2026-03-01T12:00:00+02:00', until: '2026-03-01T13:00:00+02:00' })],
      roleBindings: [withWindow(roleBinding('ns', 'expiring', 'ClusterRole', 'pod-reader', [U('bob')]), { until: '2026-03-01T10:00:00Z' })],
    },
    clock,
  );
  const rbac = new RbacAuthorizer('rbac', policy);
  const chain = new AuthorizerChain();
  chain.replace([rbac]);
  const analyzer = new AccessAnalyzer(chain, policy, new AccessIndex(policy));
  const getPods = (name: string) => req(user(name), 'get', '', 'pods', { ns: 'ns' });

  it('grants only inside the window, switching on the second', () => {
    clock.set('2026-03-01T09:59:59Z');
    expect(rbac.authorize(getPods('alice')).decision).toBe('NoOpinion');
    expect(rbac.authorize(getPods('bob')).decision).toBe('Allow');
    clock.set('2026-03-01T10:00:00Z');
    expect(rbac.authorize(getPods('alice'))).toMatchObject({ decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "temporary" of ClusterRole "pod-reader" to User "alice"' });
    expect(rbac.authorize(getPods('bob')).decision).toBe('NoOpinion');
    clock.set('2026-03-01T11:00:00Z');
    expect(rbac.authorize(getPods('alice')).decision).toBe('NoOpinion');
  });

  it('leaves the rules of bindings outside their window out of rules reviews', () => {
    clock.set('2026-03-01T09:30:00Z');
    expect(rbac.rulesFor(user('alice'), 'ns').resourceRules).toEqual([]);
    expect(rbac.rulesFor(user('bob'), 'ns').resourceRules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
  });

  it('leaves them out of who-can', () => {
    clock.set('2026-03-01T10:30:00Z');
    expect(analyzer.whoCan(getPods('')).users).toEqual(['alice']);
    clock.set('2026-03-01T09:30:00Z');
    expect(analyzer.whoCan(getPods('')).users).toEqual(['bob']);
  });

  it('explains a denial by naming the binding outside its window, with the window', async () => {
    clock.set('2026-03-01T09:30:00Z');
    const early = await analyzer.explain(getPods('alice'));
    expect(early.allowed).toBe(false);
    expect(early.unusableBindings).toEqual([
      {
        binding: { kind: 'ClusterRoleBinding', name: 'temporary' },
        role: { kind: 'ClusterRole', name: 'pod-reader' },
        reason: 'the binding is not valid before 2026-03-01T12:00:00+02:00',
        validFrom: '2026-03-01T12:00:00+02:00',
        validUntil: '2026-03-01T13:00:00+02:00',
      },
    ]);
    expect(early.nearMisses).toEqual([]);
    clock.set('2026-03-01T10:00:00Z');
    const late = await analyzer.explain(getPods('bob'));
    expect(late.unusableBindings).toEqual([
      {
        binding: { kind: 'RoleBinding', namespace: 'ns', name: 'expiring' },
        role: { kind: 'ClusterRole', name: 'pod-reader' },
        reason: 'the binding expired at 2026-03-01T10:00:00Z',
        validUntil: '2026-03-01T10:00:00Z',
      },
    ]);
  });
});
