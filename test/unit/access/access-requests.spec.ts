import { AccessRequest, AccessRequestPolicy } from '../../../src/access/requests/access-request-types';
import { autoApproves, loadAutoApproveEnvironment } from '../../../src/access/requests/auto-approve';
import { matchPolicy, PolicyWorld, recordedPolicy, subjectsInclude } from '../../../src/access/requests/policy-matching';
import { decide, newDecision } from '../../../src/access/requests/request-decisions';
import { validateAccessRequestPolicy } from '../../../src/access/requests/access-request-validation';

const GROUP = 'rbac.authorization.platform.io';
const NOW = Date.parse('2026-11-28T10:00:00.400Z');

function request(spec: Partial<AccessRequest['spec']> = {}, status: AccessRequest['status'] = { phase: 'Pending' }, namespace = 'payments'): AccessRequest {
  return {
    apiVersion: 'access.platform.io/v1',
    kind: 'AccessRequest',
    metadata: { name: 'r', namespace, uid: 'u1' },
    spec: { roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: 'edit' }, duration: '1h', requester: { username: 'alice', groups: ['devs'] }, ...spec },
    status,
  };
}

function policy(name: string, spec: Partial<AccessRequestPolicy['spec']> = {}): AccessRequestPolicy {
  return {
    metadata: { name },
    spec: {
      roles: [{ kind: 'ClusterRole', names: ['edit'] }],
      namespaces: ['payments'],
      requesters: [{ kind: 'Group', apiGroup: GROUP, name: 'devs' }],
      approvers: [{ kind: 'Group', apiGroup: GROUP, name: 'leads' }],
      requiredApprovals: 1,
      maxDuration: '2h',
      ...spec,
    },
  };
}

function world(policies: AccessRequestPolicy[], namespaceLabels: Record<string, Record<string, string>> = { payments: {} }): PolicyWorld {
  return {
    policies: () => policies,
    namespaceLabels: (name) => namespaceLabels[name],
    role: (kind, _ns, name) => (kind === 'ClusterRole' ? { metadata: { name, labels: { tier: name === 'edit' ? 'write' : 'read' } } } : undefined),
  };
}

describe('access request policies', () => {
  beforeAll(() => loadAutoApproveEnvironment());

  it('match requesters as RBAC subjects: users, groups, service accounts by their user names', () => {
    const subjects = [
      { kind: 'User', name: 'alice' },
      { kind: 'Group', name: 'oncall' },
      { kind: 'ServiceAccount', namespace: 'ci', name: 'deployer' },
    ];
    expect(subjectsInclude(subjects, 'alice', [])).toBe(true);
    expect(subjectsInclude(subjects, 'bob', ['oncall'])).toBe(true);
    expect(subjectsInclude(subjects, 'system:serviceaccount:ci:deployer', [])).toBe(true);
    expect(subjectsInclude(subjects, 'system:serviceaccount:ci:other', ['deployer'])).toBe(false);
  });

  it('choose the first policy by name that allows the request, and say why covering ones refuse it', () => {
    const short = policy('a-short', { maxDuration: '30m' });
    const long = policy('b-long', { maxDuration: '4h' });
    expect(matchPolicy(request({ duration: '1h' }), world([long, short])).policy?.metadata.name).toBe('b-long');
    expect(matchPolicy(request({ duration: '20m' }), world([long, short])).policy?.metadata.name).toBe('a-short');
    const refused = matchPolicy(request({ duration: '5h' }), world([long, short]));
    expect(refused.policy).toBeUndefined();
    expect(refused.refusals.map((r) => r.field)).toEqual(['spec.duration', 'spec.duration']);
    const needsReason = matchPolicy(request(), world([policy('c', { requireJustification: true })]));
    expect(needsReason.refusals).toEqual([{ field: 'spec.justification', detail: 'AccessRequestPolicy "c" requires a justification' }]);
  });

  it('cover namespaces by name or by label, cluster-wide requests only with clusterWide, roles by name or label', () => {
    const bySelector = policy('p', { namespaces: [], namespaceSelector: { matchLabels: { team: 'pay' } }, roles: [{ kind: 'ClusterRole', selector: { matchLabels: { tier: 'read' } } }] });
    const labelled = world([bySelector], { payments: { team: 'pay' }, other: {} });
    const view = { apiGroup: GROUP, kind: 'ClusterRole', name: 'view' };
    expect(matchPolicy(request({ roleRef: view }), labelled).policy).toBeDefined();
    expect(matchPolicy(request({ roleRef: view }, undefined, 'other'), labelled).policy).toBeUndefined();
    expect(matchPolicy(request(), labelled).policy).toBeUndefined();
    expect(matchPolicy(request({}, undefined, ''), world([policy('p')])).policy).toBeUndefined();
    expect(matchPolicy(request({}, undefined, ''), world([policy('p', { clusterWide: true })])).policy).toBeDefined();
  });

  it('a recorded policy counts only while it exists and still allows the request', () => {
    const r = request({}, { phase: 'Pending', policy: 'p' });
    expect(recordedPolicy(r, world([policy('p')]))).toBeDefined();
    expect(recordedPolicy(r, world([]))).toBeUndefined();
    expect(recordedPolicy(r, world([policy('p', { maxDuration: '10m' })]))).toBeUndefined();
  });

  it('validate autoApprove expressions as boolean CEL, and approve only when every one holds', () => {
    const errs = validateAccessRequestPolicy(policy('p', { autoApprove: [{ expression: 'request.durationSeconds' }, { expression: 'request.nope' }] }));
    expect(errs.map((e) => e.field)).toEqual(['spec.autoApprove[0].expression', 'spec.autoApprove[1].expression']);
    const r = request({ duration: '30m', justification: 'INC-1' });
    expect(autoApproves(['request.durationSeconds <= 1800', 'request.justification.startsWith("INC-")'], r).approved).toBe(true);
    expect(autoApproves(['request.durationSeconds < 1800'], r).approved).toBe(false);
    expect(autoApproves(['request.groups.exists(g, g == "devs") && request.roleName == "edit"'], r).approved).toBe(true);
    expect(autoApproves([], r).approved).toBe(false);
  });
});

describe('approval decisions', () => {
  it('read the one decision a body adds, with the server\'s user and time', () => {
    const current = request({}, { phase: 'Pending', approvals: [{ user: 'bob', time: '2026-11-28T09:00:00Z' }] });
    expect(newDecision({ status: { approvals: [...current.status!.approvals!, { comment: 'ok' }] } }, current, 'dave')).toMatchObject({ kind: 'approve', comment: 'ok' });
    expect(newDecision({ status: { approvals: current.status!.approvals, denials: [{}] } }, current, 'dave')).toMatchObject({ kind: 'deny' });
    expect(newDecision({ status: { approvals: current.status!.approvals, revocation: {} } }, current, 'dave')).toMatchObject({ kind: 'revoke' });
    const fields = (body: Record<string, unknown>) => (newDecision(body, current, 'dave') as Array<{ field: string }>).map((e) => e.field);
    expect(fields({ status: { approvals: [] } })).toEqual(['status.approvals']);
    expect(fields({ status: { approvals: [{ user: 'mallory', time: 'x' }] } })).toEqual(['status.approvals[0]']);
    expect(fields({ status: { approvals: current.status!.approvals } })).toEqual(['status']);
    expect(fields({ status: { approvals: [...current.status!.approvals!, { user: 'bob' }] } })).toEqual(['status.approvals[1].user']);
  });

  it('read a body without resourceVersion against what it could have read: another approver\'s newer entry is no removal', () => {
    const current = request({}, { phase: 'Pending', approvals: [{ user: 'dave', time: '2026-11-28T09:00:01Z' }] });
    expect(newDecision({ status: { approvals: [{ comment: 'bob too' }] } }, current, 'bob', true)).toMatchObject({ kind: 'approve', comment: 'bob too' });
    expect(newDecision({ status: { approvals: [{ comment: 'bob too' }] } }, current, 'bob')).toEqual([expect.objectContaining({ field: 'status.approvals[0]' })]);
    const revoked = request({}, { phase: 'Revoked', revocation: { user: 'dave', time: '2026-11-28T09:00:01Z' } });
    expect(newDecision({ status: { revocation: {} } }, revoked, 'bob', true)).toMatchObject({ kind: 'revoke' });
  });

  it('start the clock at the final approval, to the second', () => {
    const once = decide(request(), { kind: 'approve', user: 'bob' }, 2, NOW);
    expect(once.phase).toBe('Pending');
    expect(once.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'False', message: '1 of 2 approvals' })]);
    const twice = decide(request({}, once), { kind: 'approve', user: 'dave', comment: 'fine' }, 2, NOW + 3600_000);
    expect(twice).toMatchObject({ phase: 'Approved', validFrom: '2026-11-28T11:00:00Z', validUntil: '2026-11-28T12:00:00Z' });
    expect(twice.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', message: 'approved by bob, dave', lastTransitionTime: '2026-11-28T11:00:00Z' })]);
  });
});
