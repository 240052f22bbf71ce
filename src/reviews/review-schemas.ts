import { labelSelectorRequirementSchema, objectMetaSchema } from '../runtime/schema/meta';
import { atomicList, boolean, field, kindSchema, map, named, string, struct } from '../runtime/schema/schema';

/**
 * authorization/v1 and authentication/v1 review kinds as kube's Go types declare them, so
 * the generic body decoding finds unknown fields and wrongly typed values in them. Type
 * names are the Go types kube's decoder names in type errors.
 */
const strings = () => atomicList(string());

const SELECTOR_REQUIREMENTS = 'requirements is the parsed interpretation of a selector. All requirements must be met for a resource instance to match the selector.';
const RAW_SELECTOR =
  'rawSelector is the serialization of a selector as it appears in a query parameter. Webhook implementations should handle it, but clients may send requirements instead; rawSelector and requirements are not both set.';

export const fieldSelectorRequirementSchema = struct(
  {
    key: field(string(), 'key is the field selector key that the requirement applies to.'),
    operator: field(
      named(string(), 'v1.FieldSelectorOperator'),
      "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. The list of operators may grow in the future.",
    ),
    values: field(
      strings(),
      'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty.',
    ),
  },
  {
    required: ['key', 'operator'],
    typeName: 'v1.FieldSelectorRequirement',
    description: 'FieldSelectorRequirement is a selector that contains values, a key, and an operator that relates the key and values.',
  },
);

const fieldSelectorAttributesSchema = struct(
  { rawSelector: field(string(), RAW_SELECTOR), requirements: field(atomicList(fieldSelectorRequirementSchema), SELECTOR_REQUIREMENTS) },
  { typeName: 'v1.FieldSelectorAttributes', description: 'FieldSelectorAttributes indicates a field limited access.' },
);

const labelSelectorAttributesSchema = struct(
  { rawSelector: field(string(), RAW_SELECTOR), requirements: field(atomicList(labelSelectorRequirementSchema), SELECTOR_REQUIREMENTS) },
  { typeName: 'v1.LabelSelectorAttributes', description: 'LabelSelectorAttributes indicates a label limited access.' },
);

export const resourceAttributesSchema = struct(
  {
    namespace: field(
      string(),
      'Namespace is the namespace of the action being requested. "" (empty) means all namespaces for namespaced resources, and is required for cluster-scoped resources.',
    ),
    verb: field(string(), 'Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy. "*" means all.'),
    group: field(string(), 'Group is the API Group of the Resource. "*" means all.'),
    version: field(string(), 'Version is the API Version of the Resource. "*" means all.'),
    resource: field(string(), 'Resource is one of the existing resource types. "*" means all.'),
    subresource: field(string(), 'Subresource is one of the existing resource types. "" means none.'),
    name: field(string(), 'Name is the name of the resource being requested for a "get" or deleted for a "delete". "" (empty) means all.'),
    fieldSelector: field(
      fieldSelectorAttributesSchema,
      'fieldSelector describes the limitation on access based on field. It can only limit access, not broaden it. Honoured with the AuthorizeWithSelectors feature gate.',
    ),
    labelSelector: field(
      labelSelectorAttributesSchema,
      'labelSelector describes the limitation on access based on labels. It can only limit access, not broaden it. Honoured with the AuthorizeWithSelectors feature gate.',
    ),
  },
  { typeName: 'v1.ResourceAttributes', description: 'ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer interface' },
);

export const nonResourceAttributesSchema = struct(
  {
    path: field(string(), 'Path is the URL path of the request'),
    verb: field(string(), 'Verb is the standard HTTP verb'),
  },
  { typeName: 'v1.NonResourceAttributes', description: 'NonResourceAttributes includes the authorization attributes available for non-resource requests to the Authorizer interface' },
);

/** map[string]ExtraValue, where ExtraValue is a []string. */
const extraSchema = () => map(strings());

const RESOURCE_ATTRIBUTES = 'ResourceAuthorizationAttributes describes information for a resource access request';
const NON_RESOURCE_ATTRIBUTES = 'NonResourceAttributes describes information for a non-resource access request';

const subjectAccessReviewSpecSchema = struct(
  {
    resourceAttributes: field(resourceAttributesSchema, RESOURCE_ATTRIBUTES),
    nonResourceAttributes: field(nonResourceAttributesSchema, NON_RESOURCE_ATTRIBUTES),
    user: field(
      string(),
      'User is the user you\'re testing for. If you specify "User" but not "Groups", then is it interpreted as "What if User were not a member of any groups"',
    ),
    groups: field(strings(), "Groups is the groups you're testing for."),
    extra: field(extraSchema(), 'Extra corresponds to the user.Info.GetExtra() method from the authenticator. Since that is input to the authorizer it needs a reflection here.'),
    uid: field(string(), 'UID information about the requesting user.'),
  },
  {
    typeName: 'v1.SubjectAccessReviewSpec',
    description: 'SubjectAccessReviewSpec is a description of the access request. Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set',
  },
);

const subjectAccessReviewStatusSchema = struct(
  {
    allowed: field(boolean(), 'Allowed is required. True if the action would be allowed, false otherwise.'),
    denied: field(
      boolean(),
      'Denied is optional. True if the action would be denied, otherwise false. If both allowed is false and denied is false, then the authorizer has no opinion on whether to authorize the action. Denied may not be true if Allowed is true.',
    ),
    reason: field(string(), 'Reason is optional. It indicates why a request was allowed or denied.'),
    evaluationError: field(
      string(),
      'EvaluationError is an indication that some error occurred during the authorization check. It is entirely possible to get an error and be able to continue determine authorization status in spite of it.',
    ),
  },
  { required: ['allowed'], typeName: 'v1.SubjectAccessReviewStatus', description: 'SubjectAccessReviewStatus' },
);

const REVIEW_SPEC = 'Spec holds information about the request being evaluated';
const REVIEW_STATUS = 'Status is filled in by the server and indicates whether the request is allowed or not';

export const subjectAccessReviewSchema = kindSchema(
  objectMetaSchema,
  { spec: field(subjectAccessReviewSpecSchema, REVIEW_SPEC), status: field(subjectAccessReviewStatusSchema, REVIEW_STATUS) },
  { typeName: 'v1.SubjectAccessReview', description: 'SubjectAccessReview checks whether or not a user or group can perform an action.' },
);

export const localSubjectAccessReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(subjectAccessReviewSpecSchema, 'Spec holds information about the request being evaluated. spec.namespace must be equal to the namespace you made the request against. If empty, it is defaulted.'),
    status: field(subjectAccessReviewStatusSchema, REVIEW_STATUS),
  },
  {
    typeName: 'v1.LocalSubjectAccessReview',
    description:
      'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace. Having a namespace scoped resource makes it much easier to grant namespace scoped policy that includes permissions checking.',
  },
);

export const selfSubjectAccessReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        { resourceAttributes: field(resourceAttributesSchema, RESOURCE_ATTRIBUTES), nonResourceAttributes: field(nonResourceAttributesSchema, NON_RESOURCE_ATTRIBUTES) },
        {
          typeName: 'v1.SelfSubjectAccessReviewSpec',
          description: 'SelfSubjectAccessReviewSpec is a description of the access request. Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set',
        },
      ),
      'Spec holds information about the request being evaluated. user and groups must be empty',
    ),
    status: field(subjectAccessReviewStatusSchema, REVIEW_STATUS),
  },
  {
    typeName: 'v1.SelfSubjectAccessReview',
    description:
      'SelfSubjectAccessReview checks whether or the current user can perform an action. Not filling in a spec.namespace means "in all namespaces". Self is a special case, because users should always be able to check whether they can perform an action',
  },
);

const RULE_VERBS = 'Verb is a list of kubernetes resource API verbs, like: get, list, watch, create, update, delete, proxy. "*" means all.';

const resourceRuleSchema = struct(
  {
    verbs: field(strings(), RULE_VERBS),
    apiGroups: field(
      strings(),
      'APIGroups is the name of the APIGroup that contains the resources. If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "*" means all.',
    ),
    resources: field(strings(), 'Resources is a list of resources this rule applies to. "*" means all in the specified apiGroups. "*/foo" represents the subresource \'foo\' for all resources in the specified apiGroups.'),
    resourceNames: field(strings(), 'ResourceNames is an optional white list of names that the rule applies to. An empty set means that everything is allowed. "*" means all.'),
  },
  {
    required: ['verbs'],
    typeName: 'v1.ResourceRule',
    description:
      'ResourceRule is the list of actions the subject is allowed to perform on resources. The list ordering isn\'t significant, may contain duplicates, and possibly be incomplete.',
  },
);

const nonResourceRuleSchema = struct(
  {
    verbs: field(strings(), 'Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete, patch, head, options. "*" means all.'),
    nonResourceURLs: field(strings(), 'NonResourceURLs is a set of partial urls that a user should have access to. *s are allowed, but only as the full, final step in the path. "*" means all.'),
  },
  { required: ['verbs'], typeName: 'v1.NonResourceRule', description: 'NonResourceRule holds information that describes a rule for the non-resource' },
);

export const selfSubjectRulesReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        { namespace: field(string(), 'Namespace to evaluate rules for. Required.') },
        { typeName: 'v1.SelfSubjectRulesReviewSpec', description: 'SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.' },
      ),
      'Spec holds information about the request being evaluated.',
    ),
    status: field(
      struct(
        {
          resourceRules: field(
            atomicList(resourceRuleSchema),
            "ResourceRules is the list of actions the subject is allowed to perform on resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
          ),
          nonResourceRules: field(
            atomicList(nonResourceRuleSchema),
            "NonResourceRules is the list of actions the subject is allowed to perform on non-resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
          ),
          incomplete: field(
            boolean(),
            "Incomplete is true when the rules returned by this call are incomplete. This is most commonly encountered when an authorizer, such as an external authorizer, doesn't support rules evaluation.",
          ),
          evaluationError: field(
            string(),
            "EvaluationError can appear in combination with Rules. It indicates an error occurred during rule evaluation, such as an authorizer that doesn't support rule evaluation, and that ResourceRules and/or NonResourceRules may be incomplete.",
          ),
        },
        {
          required: ['resourceRules', 'nonResourceRules', 'incomplete'],
          typeName: 'v1.SubjectRulesReviewStatus',
          description:
            'SubjectRulesReviewStatus contains the result of a rules check. This check can be incomplete depending on the set of authorizers the server is configured with and any errors experienced during evaluation.',
        },
      ),
      'Status is filled in by the server and indicates the set of actions a user can perform.',
    ),
  },
  {
    typeName: 'v1.SelfSubjectRulesReview',
    description:
      'SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace. The returned list of actions may be incomplete depending on the server\'s authorization mode, and any errors experienced during the evaluation. It should be used by UIs to show/hide actions, or to quickly let an end user reason about their permissions; it should NOT be used by external systems to drive authorization decisions.',
  },
);

const userInfoSchema = struct(
  {
    username: field(string(), 'The name that uniquely identifies this user among all active users.'),
    uid: field(string(), 'A unique value that identifies this user across time. If this user is deleted and another user by the same name is added, they will have different UIDs.'),
    groups: field(strings(), 'The names of groups this user is a part of.'),
    extra: field(extraSchema(), 'Any additional information provided by the authenticator.'),
  },
  { typeName: 'v1.UserInfo', description: 'UserInfo holds the information about the user needed to implement the user.Info interface.' },
);

export const selfSubjectReviewSchema = kindSchema(
  objectMetaSchema,
  {
    status: field(
      struct(
        { userInfo: field(userInfoSchema, 'User attributes of the user making this request.') },
        { typeName: 'v1.SelfSubjectReviewStatus', description: 'SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.' },
      ),
      'Status is filled in by the server with the user attributes.',
    ),
  },
  {
    typeName: 'v1.SelfSubjectReview',
    description:
      'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request. When using impersonation, users will receive the user info of the user being impersonated.',
  },
);

export const tokenReviewSchema = kindSchema(
  objectMetaSchema,
  {
    spec: field(
      struct(
        {
          token: field(string(), 'Token is the opaque bearer token.'),
          audiences: field(
            strings(),
            'Audiences is a list of the identifiers that the resource server presented with the token identifies as. Audience-aware token authenticators will verify that the token was intended for at least one of the audiences in this list. If no audiences are provided, the audience will default to the audience of the Kubernetes apiserver.',
          ),
        },
        { typeName: 'v1.TokenReviewSpec', description: 'TokenReviewSpec is a description of the token authentication request.' },
      ),
      'Spec holds information about the request being evaluated',
    ),
    status: field(
      struct(
        {
          authenticated: field(boolean(), 'Authenticated indicates that the token was associated with a known user.'),
          user: field(userInfoSchema, 'User is the UserInfo associated with the provided token.'),
          audiences: field(
            strings(),
            "Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token. An identifier is any identifier in the intersection of the TokenReviewSpec audiences and the token's audiences.",
          ),
          error: field(string(), "Error indicates that the token couldn't be checked"),
        },
        { typeName: 'v1.TokenReviewStatus', description: 'TokenReviewStatus is the result of the token authentication request.' },
      ),
      'Status is filled in by the server and indicates whether the request can be authenticated.',
    ),
  },
  {
    typeName: 'v1.TokenReview',
    description: 'TokenReview attempts to authenticate a token to a known user. Note: TokenReview requests may be cached by the webhook token authenticator plugin in the kube-apiserver.',
  },
);
