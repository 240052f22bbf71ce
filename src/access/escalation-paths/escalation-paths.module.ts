import { Module, OnModuleInit } from '@nestjs/common';
import { storageResource } from '../../apimachinery/store-key';
import { ALL_AUTHENTICATED, UserInfo } from '../../apimachinery/user-info';
import { AuthorizationModule } from '../../authorization/authorization.module';
import { AuthorizerChain } from '../../authorization/authorizer-chain';
import { RbacAuthorizationModule } from '../../authorization/rbac/rbac-authorization.module';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { Pod, podType } from '../../core/kinds/pod';
import { Secret, secretType } from '../../core/kinds/secret';
import { RegistryModule } from '../../registry/registry.module';
import { ResourceRegistry } from '../../registry/resources/registry';
import { WriteOptions } from '../../registry/rest/storage';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { AccessStorage } from '../access-storage';
import { DEFAULT_MAX_STEPS, escalationPathReviewType } from './escalation-path-kind';
import { EscalationPathSearch, serviceAccountIdentity } from './escalation-path-search';
import { EscalationPath, EscalationPathReviewSpec, EscalationPathReviewStatus, PathTarget, StepPermission } from './escalation-path-types';

/** Identities expanded at most per question: the search stays bounded in time and memory on any policy. */
const MAX_IDENTITIES = 2000;
const MAX_PATHS = 10;
/** Authorizer decisions per question (a decision costs microseconds: this keeps a question within about a second). */
const MAX_DECISIONS = 200_000;
/** Subjects a question without one (`--all`) reports at most. */
const MAX_SUBJECT_PATHS = 200;

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

/** EscalationPathReview: answered by a bounded search over the live policy, asking the authorizer chain. */
@Module({ imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule] })
export class EscalationPathsModule implements OnModuleInit {
  private readonly secrets: Informer<Secret>;
  private readonly pods: Informer<Pod>;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly chain: AuthorizerChain,
    private readonly policy: RbacIndex,
    informers: SharedInformerFactory,
  ) {
    this.secrets = informers.informerFor<Secret>(storageResource(secretType));
    this.pods = informers.informerFor<Pod>(storageResource(podType));
  }

  onModuleInit(): void {
    this.registry.register(
      escalationPathReviewType,
      new AccessStorage<EscalationPathReviewSpec>(escalationPathReviewType, async (spec, opts) => ({ spec, status: await this.answer(spec, opts) })),
    );
  }

  private async answer(spec: EscalationPathReviewSpec, opts: WriteOptions): Promise<EscalationPathReviewStatus> {
    await Promise.all([this.policy.ready(), this.secrets.start(), this.pods.start()]);
    await this.chain.consistent(opts.receivedAt);
    const search = new EscalationPathSearch(
      { chain: this.chain, policy: this.policy, secrets: () => this.secrets.list(), pods: () => this.pods.list(), arrivedAt: opts.receivedAt },
      targetPermission(spec.target ?? {}),
      { maxSteps: spec.maxSteps ?? DEFAULT_MAX_STEPS, maxIdentities: MAX_IDENTITIES, maxPaths: MAX_PATHS, maxDecisions: MAX_DECISIONS },
    );
    const subject = spec.subject;
    if (subject) {
      const start: UserInfo = subject.serviceAccount
        ? serviceAccountIdentity(subject.serviceAccount.namespace ?? '', subject.serviceAccount.name ?? '')
        : { username: subject.user ?? '', groups: [...new Set([...(subject.groups ?? []), ALL_AUTHENTICATED])] };
      const { paths, incomplete } = await search.from(start, start.username);
      return { reachable: paths.length > 0, paths, incomplete };
    }
    // Every subject of the policy that reaches the target only through steps: its shortest path.
    const paths: EscalationPath[] = [];
    let incomplete = false;
    for (const { user, label } of search.subjects()) {
      const found = await search.from(user, label);
      incomplete ||= found.incomplete;
      if (found.paths.length && found.paths[0].steps.length) paths.push(found.paths[0]);
      if (paths.length >= MAX_SUBJECT_PATHS || search.exhausted) {
        incomplete = true;
        break;
      }
    }
    return { reachable: paths.length > 0, paths, incomplete };
  }
}
