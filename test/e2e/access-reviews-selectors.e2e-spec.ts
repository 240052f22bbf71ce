import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeatureGates } from '../../src/config/feature-gates';
import { startTestServer, TestServer } from '../support/test-server';
import { eventually } from '../support/eventually';
import { writeTokenFile } from '../support/token-file';

/**
 * Access reviews with `--authorization-mode=RBAC,Node,AlwaysDeny` and the selector gates on:
 * `denied` only when an authorizer denies, and field/label selectors in the question limit
 * it exactly as the same selectors limit a real list (the Node authorizer lets a node list
 * only the pods bound to it).
 */
const AUTHZ = '/apis/authorization.platform.io/v1';
const RBAC = '/apis/rbac.authorization.platform.io/v1';
const RBAC_GROUP = 'rbac.authorization.platform.io';
const NODE_USER = 'system:node:n1';
const NODE = { token: 'node-token' };
const BOB = { token: 'bob-token' };

const sar = (spec: object) => ({ apiVersion: 'authorization.platform.io/v1', kind: 'SubjectAccessReview', spec });
const nodeListsPods = (selectors: object = {}) => sar({ user: NODE_USER, groups: ['system:nodes', 'system:authenticated'], resourceAttributes: { verb: 'list', resource: 'pods', ...selectors } });

describe('access reviews: explicit denies and selectors (RBAC,Node,AlwaysDeny; AuthorizeWithSelectors on)', () => {
  let server: TestServer;
  let dir: string;
  const review = async (body: object) => {
    const res = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, body);
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reviews-selectors-e2e-'));
    const tokens = writeTokenFile(dir, ['bob-token,bob,uid-bob', `node-token,${NODE_USER},uid-node,"system:nodes"`]);
    server = await startTestServer({
      options: {
        authorizationModes: ['RBAC', 'Node', 'AlwaysDeny'],
        tokenAuthFile: tokens,
        featureGates: FeatureGates.from({ AuthorizeWithSelectors: true, AuthorizeNodeWithSelectors: true }),
      },
    });
    expect((await server.admin.post('/api/v1/namespaces', { metadata: { name: 'team-a' } })).status).toBe(201);
    const role = { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    expect((await server.admin.post(`${RBAC}/namespaces/team-a/roles`, role)).status).toBe(201);
    const binding = {
      metadata: { name: 'bob-reads' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }],
    };
    expect((await server.admin.post(`${RBAC}/namespaces/team-a/rolebindings`, binding)).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('denied', () => {
    it('is true only when an authorizer denies, with its reason', async () => {
      // The RBAC index follows the binding written in beforeAll asynchronously.
      await eventually(async () => {
        const allowed = await review(sar({ user: 'bob', resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'pods' } }));
        expect(allowed.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "bob-reads/team-a" of Role "pod-reader" to User "bob"' });
      }, 5000, 50);
      const denied = await review(sar({ user: 'bob', resourceAttributes: { namespace: 'team-a', verb: 'delete', resource: 'pods' } }));
      expect(denied.status).toEqual({ allowed: false, denied: true, reason: 'Everything is forbidden.' });
    });

    it('is what a SelfSubjectAccessReview reports too', async () => {
      const res = await server.anonymous.post(`${AUTHZ}/selfsubjectaccessreviews`, { spec: { resourceAttributes: { verb: 'list', resource: 'secrets' } } }, { as: BOB });
      expect(res.status).toBe(201);
      expect(res.body.status).toEqual({ allowed: false, denied: true, reason: 'Everything is forbidden.' });
    });
  });

  describe('selectors', () => {
    it('limit the question: a node may list only the pods bound to it', async () => {
      const required = await review(nodeListsPods({ fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] } }));
      expect(required.status).toEqual({ allowed: true });
      expect(required.spec.resourceAttributes.fieldSelector).toEqual({ requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] });
      const raw = await review(nodeListsPods({ fieldSelector: { rawSelector: 'spec.nodeName=n1' } }));
      expect(raw.status).toEqual({ allowed: true });
      const other = await review(nodeListsPods({ fieldSelector: { rawSelector: 'spec.nodeName=n2' } }));
      expect(other.status).toEqual({ allowed: false, denied: true, reason: 'Everything is forbidden.' });
      const none = await review(nodeListsPods());
      expect(none.status).toEqual({ allowed: false, denied: true, reason: 'Everything is forbidden.' });
      const empty = await review(nodeListsPods({ fieldSelector: {} }));
      expect(empty.status).toEqual({ allowed: false, denied: true, reason: 'Everything is forbidden.' });
    });

    it('answer like the real request with the same selector', async () => {
      const listed = await server.anonymous.get('/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', { as: NODE });
      expect(listed.status).toBe(200);
      const refused = await server.anonymous.get('/api/v1/pods', { as: NODE });
      expect(refused.status).toBe(403);
    });

    it('that do not parse leave the question unrestricted and say so in evaluationError', async () => {
      const raw = await review(nodeListsPods({ fieldSelector: { rawSelector: 'spec.nodeName' } }));
      expect(raw.status).toEqual({
        allowed: false,
        denied: true,
        reason: 'Everything is forbidden.',
        evaluationError: 'spec.resourceAttributes.fieldSelector ignored due to parse error',
      });
      const partial = await review(
        nodeListsPods({
          fieldSelector: {
            requirements: [
              { key: 'spec.nodeName', operator: 'In', values: ['n1'] },
              { key: 'status.phase', operator: 'Exists' },
            ],
          },
          labelSelector: { requirements: [{ key: 'app', operator: 'Resembles', values: ['web'] }] },
        }),
      );
      expect(partial.status).toEqual({
        allowed: true,
        evaluationError: 'spec.resourceAttributes.fieldSelector partially ignored due to parse error; spec.resourceAttributes.labelSelector ignored due to parse error',
      });
    });

    it('refuse both forms at once and set operators without values (422)', async () => {
      const both = await server.admin.post(
        `${AUTHZ}/subjectaccessreviews`,
        nodeListsPods({ labelSelector: { rawSelector: 'app=web', requirements: [{ key: 'app', operator: 'In', values: ['web'] }] } }),
      );
      expect(both.status).toBe(422);
      expect(both.body.message).toBe(
        '.authorization.platform.io "" is invalid: spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "app=web": may not specified at the same time as requirements',
      );
      const noValues = await server.admin.post(`${AUTHZ}/subjectaccessreviews`, nodeListsPods({ fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In' }] } }));
      expect(noValues.status).toBe(422);
      expect(noValues.body.details.causes).toEqual([
        {
          reason: 'FieldValueRequired',
          message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
          field: 'spec.resourceAttributes.fieldSelector.requirements[0].values',
        },
      ]);
    });
  });
});
