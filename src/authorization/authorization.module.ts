import { Module } from '@nestjs/common';
import { Clock, CLOCK, systemClock } from '../apimachinery/clock';
import { AuthorizerChain } from './authorizer-chain';
import { AuthorizerFactories } from './authorizer-factories';
import { BindingUsageRecorder } from './binding-usage-recorder';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { CurrentRevision, REVISION_READ_TIMEOUT_MS } from '../storage/mvcc/current-revision';
import { DecisionConsistency } from './decision-consistency';
import { ChangeFeedService } from '../storage/changefeed/change-feed.service';

const bindingUsageRecorder = {
  provide: BindingUsageRecorder,
  // A clock other than the system's (tests) times the grants too; the system's is read once a second.
  useFactory: (options?: ServerOptions, clock?: Clock) =>
    new BindingUsageRecorder(options?.bindingUsage.recording ?? true, clock && clock !== systemClock ? () => clock.now() : undefined),
  inject: [
    { token: SERVER_OPTIONS, optional: true },
    { token: CLOCK, optional: true },
  ],
};

const decisionConsistency = {
  provide: DecisionConsistency,
  // Without a store (unit tests of the chain) decisions have nothing to wait for.
  useFactory: (revision: CurrentRevision | undefined, options?: ServerOptions, feed?: ChangeFeedService) =>
    revision ? new DecisionConsistency(revision, options?.consistentAuthorization ?? true, undefined, feed ? () => feed.readsAnswered(REVISION_READ_TIMEOUT_MS) : undefined) : null,
  inject: [
    { token: CurrentRevision, optional: true },
    { token: SERVER_OPTIONS, optional: true },
    { token: ChangeFeedService, optional: true },
  ],
};

/**
 * The authorizer chain, its guard, and the registry where authorizer types are plugged in
 * (RBAC, Node, ABAC, Webhook register their factories from their own modules, which import
 * this one; the chain is built from the configuration by AuthorizationConfigModule).
 */
@Module({
  providers: [AuthorizerChain, AuthorizerFactories, bindingUsageRecorder, decisionConsistency],
  exports: [AuthorizerChain, AuthorizerFactories, BindingUsageRecorder, DecisionConsistency],
})
export class AuthorizationModule {}
