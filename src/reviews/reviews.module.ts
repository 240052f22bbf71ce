import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { ResourceRegistry } from '../registry/resources/registry';
import { AuthenticationModule } from '../authentication/authentication.module';
import { Authenticator } from '../authentication/authenticator';
import { AuthorizationModule } from '../authorization/authorization.module';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { AccessReviewStorage, callerSubject, specSubject } from './access-review-storage';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, REVIEW_VERSION } from './review-types';
import {
  KUBECTL_REVIEW_ALIASES,
  localSubjectAccessReviewType,
  selfSubjectAccessReviewType,
  selfSubjectReviewType,
  selfSubjectRulesReviewType,
  subjectAccessReviewType,
  tokenReviewType,
} from './review-kinds';
import { RulesReviewStorage } from './rules-review-storage';
import { SelfSubjectReviewStorage } from './self-subject-review-storage';
import { TokenReviewStorage } from './token-review-storage';

/**
 * The virtual review kinds: SubjectAccessReview, LocalSubjectAccessReview,
 * SelfSubjectAccessReview and SelfSubjectRulesReview (authorization.platform.io/v1) and
 * SelfSubjectReview and TokenReview (authentication.platform.io/v1), each a create-only storage that asks
 * the authorizer chain (or reads the caller) and stores nothing. With
 * --kubectl-review-aliases they also answer at kube's group names, where kubectl posts.
 */
@Module({ imports: [RegistryModule, AuthorizationModule, AuthenticationModule] })
export class ReviewsModule implements OnModuleInit {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly chain: AuthorizerChain,
    private readonly authenticator: Authenticator,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
  ) {}

  onModuleInit(): void {
    const attributeOptions = () => ({ authorizeWithSelectors: this.options.featureGates.enabled('AuthorizeWithSelectors') });
    this.registry.declareGroupVersion({ group: AUTHORIZATION_GROUP, version: REVIEW_VERSION, introduced: '1.6' });
    this.registry.declareGroupVersion({ group: AUTHENTICATION_GROUP, version: REVIEW_VERSION, introduced: '1.28' });
    // In kube's order (its installer sorts resources by path), which discovery shows.
    this.registry.register(
      localSubjectAccessReviewType,
      new AccessReviewStorage(localSubjectAccessReviewType, this.chain, specSubject, attributeOptions),
    );
    this.registry.register(
      selfSubjectAccessReviewType,
      new AccessReviewStorage(selfSubjectAccessReviewType, this.chain, callerSubject, attributeOptions),
    );
    this.registry.register(selfSubjectRulesReviewType, new RulesReviewStorage(selfSubjectRulesReviewType, this.chain));
    this.registry.register(subjectAccessReviewType, new AccessReviewStorage(subjectAccessReviewType, this.chain, specSubject, attributeOptions));
    this.registry.register(selfSubjectReviewType, new SelfSubjectReviewStorage(selfSubjectReviewType));
    this.registry.register(tokenReviewType, new TokenReviewStorage(tokenReviewType, this.authenticator));
    if (this.options.kubectlReviewAliases) for (const alias of KUBECTL_REVIEW_ALIASES) this.registry.registerAlias(alias);
  }
}
