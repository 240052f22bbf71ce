import { Injectable } from '@nestjs/common';
import { storageResource } from '../../apimachinery/store-key';
import { ALL_AUTHENTICATED, UserInfo } from '../../apimachinery/user-info';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { Pod, podType } from '../../core/kinds/pod';
import { Secret, secretType } from '../../core/kinds/secret';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { AccessAnalyzer } from '../access-analyzer';
import { AccessIndex } from '../access-index';
import { DEFAULT_MAX_STEPS } from './escalation-path-kind';
import { ReachingSubject, ReverseEscalationSearch } from './escalation-path-reverse';
import { EscalationPathSearch, serviceAccountIdentity } from './escalation-path-search';
import { EscalationPathReviewSpec, EscalationPathReviewStatus, PathTarget, StepPermission } from './escalation-path-types';

/** Identities expanded at most per question about one subject: the search stays bounded in time and memory on any policy. */
const MAX_IDENTITIES = 2000;
const MAX_PATHS = 10;
/** Authorizer decisions per question about one subject (a decision costs microseconds: this keeps it within about a second). */
const MAX_DECISIONS = 200_000;
/**
 * Authorizer decisions for a question about every subject: the reverse search asks about each
 * identity a few times and about each candidate of a step once, so this is reached only on a
 * policy where hundreds of thousands of subjects could take a step toward the target.
 */
const MAX_DECISIONS_ALL = 2_000_000;
/** Subjects a question without one (`--all`) reports at most (the answer's size). */
const MAX_SUBJECT_PATHS = 10_000;

export const CLUSTER_ADMIN: PathTarget = { clusterAdmin: true };

function targetPermission(target: PathTarget): StepPermission {
  if (target.clusterAdmin) return { verb: '*', group: '*', resource: '*' };
  return {
    verb: target.verb ?? '',
    group: target.group ?? '',
    resource: target.resource ?? '',
    ...(target.subresource ? { subresource: target.subresource } : {}),
    ...(target.namespace ? { namespace: target.namespace } : {}),
    ...(target.name ? { name: target.name } : {}),
  };
}

/**
 * Escalation paths over the live policy, asking the authorizer chain: for one subject a
 * forward search, for every subject the reverse search from the target.
 */
@Injectable()
export class EscalationPathService {
  private readonly secrets: Informer<Secret>;
  private readonly pods: Informer<Pod>;
  private readonly analyzer: AccessAnalyzer;

  constructor(
    private readonly chain: AuthorizerChain,
    private readonly policy: RbacIndex,
    index: AccessIndex,
    informers: SharedInformerFactory,
  ) {
    this.secrets = informers.informerFor<Secret>(storageResource(secretType));
    this.pods = informers.informerFor<Pod>(storageResource(podType));
    this.analyzer = new AccessAnalyzer(chain, policy, index);
  }

  private async search(target: PathTarget, maxSteps: number, maxDecisions: number, arrivedAt?: number): Promise<EscalationPathSearch> {
    await Promise.all([this.policy.ready(), this.secrets.start(), this.pods.start()]);
    await this.chain.consistent(arrivedAt);
    return new EscalationPathSearch(
      { chain: this.chain, policy: this.policy, secrets: () => this.secrets.list(), pods: () => this.pods.list(), arrivedAt },
      targetPermission(target),
      { maxSteps, maxIdentities: MAX_IDENTITIES, maxPaths: MAX_PATHS, maxDecisions },
    );
  }

  /** Every subject of the policy that reaches the target, with its shortest path (none when it holds the target). */
  async reaching(target: PathTarget, maxSteps = DEFAULT_MAX_STEPS, arrivedAt?: number): Promise<{ reaching: ReachingSubject[]; incomplete: boolean }> {
    const search = await this.search(target, maxSteps, MAX_DECISIONS_ALL, arrivedAt);
    return new ReverseEscalationSearch(search, this.chain, (attrs) => this.analyzer.whoCan(attrs)).run();
  }

  async answer(spec: EscalationPathReviewSpec, arrivedAt?: number): Promise<EscalationPathReviewStatus> {
    const target = spec.target ?? {};
    const maxSteps = spec.maxSteps ?? DEFAULT_MAX_STEPS;
    const subject = spec.subject;
    if (subject) {
      const search = await this.search(target, maxSteps, MAX_DECISIONS, arrivedAt);
      const start: UserInfo = subject.serviceAccount
        ? serviceAccountIdentity(subject.serviceAccount.namespace ?? '', subject.serviceAccount.name ?? '')
        : { username: subject.user ?? '', groups: [...new Set([...(subject.groups ?? []), ALL_AUTHENTICATED])] };
      const { paths, incomplete } = await search.from(start, start.username);
      return { reachable: paths.length > 0, paths, incomplete };
    }
    // Every subject of the policy that reaches the target only through steps: its shortest path.
    const found = await this.reaching(target, maxSteps, arrivedAt);
    const paths = found.reaching.filter((r) => r.path.steps.length).map((r) => r.path);
    const incomplete = found.incomplete || paths.length > MAX_SUBJECT_PATHS;
    return { reachable: paths.length > 0, paths: paths.slice(0, MAX_SUBJECT_PATHS), incomplete };
  }
}
