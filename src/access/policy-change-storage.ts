import { fieldErrors } from '../apimachinery/field-errors';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { RbacIndex } from '../authorization/rbac/rbac-index.service';
import { ResourceRegistry } from '../registry/resources/registry';
import { reviewInvalid } from '../reviews/review-request';
import { AccessIndex } from './access-index';
import { AccessStorage } from './access-storage';
import { ACCESS_GROUP } from './access-types';
import { policyChangeReviewType } from './policy-change-kind';
import { PolicyChangeAnalyzer, PolicyChangeTooLarge } from './policy-change-analyzer';
import { PolicyChangeSpec } from './policy-change-types';

/**
 * Serves PolicyChangeReview through the access kinds' create-only storage: the answer
 * reflects every RBAC write committed before the request arrived, and a change too large to
 * answer is a 422 that says how to narrow it.
 */
export function registerPolicyChangeReview(registry: ResourceRegistry, policy: RbacIndex, index: AccessIndex, chain: AuthorizerChain): void {
  const analyzer = new PolicyChangeAnalyzer(policy, index, chain);
  registry.register(
    policyChangeReviewType,
    new AccessStorage<PolicyChangeSpec>(policyChangeReviewType, async (spec, opts) => {
      await policy.ready();
      await chain.consistent(opts.receivedAt);
      try {
        return { spec, status: await analyzer.answer(spec, opts.user) };
      } catch (err) {
        if (err instanceof PolicyChangeTooLarge) throw reviewInvalid(ACCESS_GROUP, [fieldErrors.invalid('spec.scope', '', err.message)]);
        throw err;
      }
    }),
  );
}
