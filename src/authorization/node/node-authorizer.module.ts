import { Inject, Module } from '@nestjs/common';
import { SERVER_OPTIONS, ServerOptions } from '../../config/options';
import { AuthorizationModule } from '../authorization.module';
import { AuthorizerFactories } from '../authorizer-factories';
import { NodeAuthorizer } from './node-authorizer';
import { NodeGraphService } from './node-graph.service';

/**
 * The Node authorizer type (`--authorization-mode=Node`, or `type: Node` in the
 * authorization configuration). Its graph is built only when a Node authorizer is, and
 * building one waits for the graph's initial list, so the chain never answers from an
 * empty graph.
 */
@Module({ imports: [AuthorizationModule], providers: [NodeGraphService] })
export class NodeAuthorizerModule {
  constructor(factories: AuthorizerFactories, graph: NodeGraphService, @Inject(SERVER_OPTIONS) options: ServerOptions) {
    const gates = options.featureGates;
    const authorizeWithSelectors = gates.enabled('AuthorizeNodeWithSelectors') && gates.enabled('AuthorizeWithSelectors');
    factories.register('Node', async (entry) => {
      await graph.start();
      return new NodeAuthorizer(entry.name, graph, { authorizeWithSelectors });
    });
  }
}
