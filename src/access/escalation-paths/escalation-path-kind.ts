import { FieldError, fieldErrors, FieldPath } from '../../apimachinery/field-errors';
import { KubeObject } from '../../apimachinery/types';
import { objectMetaSchema } from '../../runtime/schema/meta';
import { atomicList, boolean, field, integer, kindSchema, string, struct } from '../../runtime/schema/schema';
import { createOnlyType, reviewStrategy } from '../../reviews/review-kinds';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';
import { EscalationPathReview } from './escalation-path-types';

/** EscalationPathReview: its schema (for field validation and `kubectl explain`), validation and kind. */

export const DEFAULT_MAX_STEPS = 4;
export const MAX_MAX_STEPS = 6;

const strings = () => atomicList(string());

const permissionSchema = struct(
  {
    verb: field(string(), 'The verb.'),
    group: field(string(), 'The API group ("" is the core group).'),
    resource: field(string(), 'The resource.'),
    subresource: field(string(), 'The subresource, if any.'),
    namespace: field(string(), 'The namespace; empty: cluster-wide.'),
    name: field(string(), 'The object name, if the permission names one.'),
  },
  { typeName: 'v1.StepPermission', description: 'StepPermission is one permission a step uses.' },
);

const grantSchema = struct(
  {
    authorizer: field(
      struct({ type: field(string(), 'Authorizer type.'), name: field(string(), 'Authorizer name.') }, { typeName: 'v1.AuthorizerReference', description: 'The authorizer that allowed.' }),
      'The authorizer of the chain that allows the permission.',
    ),
    binding: field(
      struct(
        { kind: field(string(), 'RoleBinding or ClusterRoleBinding.'), namespace: field(string(), 'Namespace of a RoleBinding.'), name: field(string(), 'Name.') },
        { typeName: 'v1.StepBinding', description: 'The binding that grants it (RBAC).' },
      ),
      'The RBAC binding that grants it.',
    ),
    role: field(struct({ kind: field(string(), 'Role or ClusterRole.'), name: field(string(), 'Name.') }, { typeName: 'v1.StepRole', description: 'The role.' }), 'The role the binding references.'),
  },
  { typeName: 'v1.StepGrant', description: 'StepGrant is what allows a permission a step uses.' },
);

const stepSchema = struct(
  {
    capability: field(string(), 'impersonate, constrained-impersonate (impersonate:<mode> on the identity; usable where the actor holds impersonate-on:<mode>:<verb>), create-pod (run a pod as the service account), create-token (serviceaccounts/token), read-token-secret, nodes-proxy (exec into a pod through its node), bind or escalate.'),
    actor: field(string(), 'The identity that takes the step.'),
    uses: field(
      atomicList(struct({ permission: field(permissionSchema, 'The permission.'), grantedBy: field(grantSchema, 'What allows it.') }, { typeName: 'v1.StepUse', description: 'A permission and its grant.' })),
      'The permissions the step needs, each with what grants it.',
    ),
    yields: field(
      struct(
        { user: field(string(), 'The user name it yields.'), groups: field(strings(), 'Its groups.'), clusterRole: field(string(), 'The ClusterRole it binds to the actor.'),
          impersonationMode: field(string(), 'Constrained impersonation: the mode (user-info, serviceaccount, arbitrary-node); the identity acts only where the actor holds impersonate-on:<mode>:<verb>, which the next steps list.'),
        },
        { typeName: 'v1.StepYield', description: 'What a step yields.' },
      ),
      'The identity (or role) the step yields.',
    ),
  },
  { typeName: 'v1.PathStep', description: 'PathStep is one capability used along a path.' },
);

const subjectSchema = struct(
  {
    user: field(string(), 'A user name.'),
    groups: field(strings(), "The user's groups."),
    serviceAccount: field(struct({ namespace: field(string(), 'Namespace.'), name: field(string(), 'Name.') }, { typeName: 'v1.ServiceAccountReference', description: 'A service account.' }), 'A service account instead of a user.'),
  },
  { typeName: 'v1.PathSubject', description: 'PathSubject is the identity the search starts from: a user with groups, or a service account.' },
);

const targetSchema = struct(
  {
    clusterAdmin: field(boolean(), 'Shorthand for `*` on `*` in every API group, cluster-wide: the power of cluster-admin.'),
    verb: field(string(), 'The verb of the target permission.'),
    group: field(string(), 'Its API group.'),
    resource: field(string(), 'Its resource.'),
    subresource: field(string(), 'Its subresource.'),
    namespace: field(string(), 'Its namespace; empty: cluster-wide.'),
    name: field(string(), 'The object name.'),
  },
  { typeName: 'v1.PathTarget', description: 'PathTarget is the permission searched for: clusterAdmin, or a verb on a resource.' },
);

export const escalationPathReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          subject: field(subjectSchema, 'Whose paths to find; absent: every subject of the policy with a path (and not holding the target already).'),
          target: field(targetSchema, 'The permission to reach.'),
          maxSteps: field(integer(), `Steps searched at most: ${DEFAULT_MAX_STEPS} by default, at most ${MAX_MAX_STEPS}.`),
        },
        { required: ['target'], typeName: 'v1.EscalationPathReviewSpec', description: 'EscalationPathReviewSpec is the subject and the target.' },
      ),
      'The question.',
    ),
    status: field(
      struct(
        {
          reachable: field(boolean(), 'Whether the subject (or any subject) reaches the target.'),
          paths: field(
            atomicList(struct({ subject: field(string(), 'Where the path starts.'), steps: field(atomicList(stepSchema), 'The steps, in order; none when the subject holds the target.') }, { typeName: 'v1.EscalationPath', description: 'A path.' })),
            'Shortest first.',
          ),
          incomplete: field(boolean(), 'A bound (maxSteps, identities searched, paths listed) was hit: more or longer paths may exist.'),
          evaluationError: field(string(), 'Errors met.'),
        },
        { typeName: 'v1.EscalationPathReviewStatus', description: 'EscalationPathReviewStatus holds the paths found.' },
      ),
      'The answer.',
    ),
  },
  {
    typeName: 'v1.EscalationPathReview',
    description:
      'EscalationPathReview finds how a subject can reach a permission (or cluster-admin) through capabilities that yield other identities or roles: impersonation, pods run as service accounts, token minting, token Secrets, nodes/proxy, bind and escalate; every permission asked of the authorizer chain that makes real decisions.',
  },
);

const SPEC = FieldPath.root('spec');

export function validateEscalationPathReview(review: EscalationPathReview): FieldError[] {
  const errs: FieldError[] = [];
  const spec = review.spec ?? {};
  const subject = spec.subject;
  if (subject) {
    const path = SPEC.child('subject');
    if (subject.user && subject.serviceAccount) errs.push(fieldErrors.invalid(path, 'user and serviceAccount', 'exactly one of user and serviceAccount'));
    else if (!subject.user && !subject.serviceAccount) errs.push(fieldErrors.required(path.child('user'), 'one of user and serviceAccount'));
    if (subject.serviceAccount) {
      if (!subject.serviceAccount.namespace) errs.push(fieldErrors.required(path.child('serviceAccount').child('namespace')));
      if (!subject.serviceAccount.name) errs.push(fieldErrors.required(path.child('serviceAccount').child('name')));
      if (subject.groups?.length) errs.push(fieldErrors.forbidden(path.child('groups'), 'a service account has its own groups'));
    }
  }
  const target = spec.target;
  const tpath = SPEC.child('target');
  if (!target) errs.push(fieldErrors.required(tpath));
  else if (target.clusterAdmin) {
    if (target.verb || target.resource || target.group || target.namespace || target.name || target.subresource) {
      errs.push(fieldErrors.invalid(tpath, 'clusterAdmin with a permission', 'clusterAdmin stands for the whole permission: give it alone'));
    }
  } else {
    if (!target.verb) errs.push(fieldErrors.required(tpath.child('verb'), 'or clusterAdmin: true'));
    if (!target.resource) errs.push(fieldErrors.required(tpath.child('resource'), 'or clusterAdmin: true'));
  }
  const max = spec.maxSteps;
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > MAX_MAX_STEPS)) {
    errs.push(fieldErrors.invalid(SPEC.child('maxSteps'), max, `must be between 1 and ${MAX_MAX_STEPS}`));
  }
  return errs;
}

export const escalationPathReviewType = createOnlyType(
  ACCESS_GROUP,
  ACCESS_VERSION,
  'EscalationPathReview',
  'escalationpathreviews',
  false,
  escalationPathReviewSchema,
  reviewStrategy((obj: KubeObject) => validateEscalationPathReview(obj as unknown as EscalationPathReview)),
);
