import { atomicList, boolean, string, struct, StructSchema } from '../../runtime/schema/schema';

/**
 * The AuthorizationConfiguration file's shape as a structural schema, each struct with the Go
 * type kube decodes it into, read by the schema decoder every kind goes through: type errors
 * and unknown fields are worded as kube's strict decoding words them.
 */
const duration = () => string('duration');

const webhookConfiguration = struct(
  {
    authorizedTTL: duration(),
    cacheAuthorizedRequests: boolean(),
    unauthorizedTTL: duration(),
    cacheUnauthorizedRequests: boolean(),
    timeout: duration(),
    subjectAccessReviewVersion: string(),
    matchConditionSubjectAccessReviewVersion: string(),
    failurePolicy: string(),
    connectionInfo: struct({ type: string(), kubeConfigFile: string() }, { typeName: 'v1.WebhookConnectionInfo' }),
    matchConditions: atomicList(struct({ expression: string() }, { typeName: 'v1.WebhookMatchCondition' })),
  },
  { typeName: 'v1.WebhookConfiguration' },
);

export const AUTHORIZATION_CONFIGURATION_SCHEMA: StructSchema = struct(
  {
    apiVersion: string(),
    kind: string(),
    authorizers: atomicList(struct({ type: string(), name: string(), webhook: webhookConfiguration }, { typeName: 'v1.AuthorizerConfiguration' })),
  },
  { typeName: 'v1.AuthorizationConfiguration' },
);

