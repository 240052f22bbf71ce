import { atomicList, boolean, string, struct, StructSchema } from '../../api/schema/schema';
import { strictDecodingError } from '../../api/validation/schema-decoder';

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

/**
 * What kube's strict decoding of the document would say, or undefined when it fits: the first
 * value of the wrong type stops decoding (`json: cannot unmarshal ...`); otherwise every unknown
 * field is reported together, in document order.
 */
export function shapeProblem(document: Record<string, unknown>): string | undefined {
  return strictDecodingError(document, AUTHORIZATION_CONFIGURATION_SCHEMA, 'v1.AuthorizationConfiguration');
}
