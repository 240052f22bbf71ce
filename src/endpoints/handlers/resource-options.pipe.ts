import { Injectable } from '@nestjs/common';
import { errors } from '../../apimachinery/errors';
import { RequestWriteOptions } from '../../registry/options/request-options';
import { parseGetOptions, parseListOptions, parseWatchOptions, Query } from '../../registry/options/read-options';
import { ResourceOptions, WriteOptionsScope } from '../request/request-scope';
import { TargetResolver } from '../request/target-resolver';

/**
 * The last pipe of a resource request's scope: its typed options by verb. A verb the kind does
 * not serve at the path is kube's 405 first; then the read options (GetOptions, ListOptions,
 * WatchOptions: resourceVersion(Match), limit, continue, selectors, timeoutSeconds,
 * allowWatchBookmarks, sendInitialEvents), a deletecollection's ListOptions included. The
 * handler receives the finished, frozen scope.
 */
@Injectable()
export class ResourceOptionsPipe {
  constructor(private readonly resolver: TargetResolver) {}

  /** What the pipe adds to the request's scope: the typed options of what it does. */
  optionsOf(scope: Pick<WriteOptionsScope, 'info' | 'target' | 'write'>, query: Query): ResourceOptions {
    const resolved = scope.target;
    const { type } = resolved.target;
    const verb = scope.info.verb;
    switch (verb) {
      case 'watch':
        // `?watch=true` reaches kube's list handler, which names the verb when the storage cannot watch.
        if (type.verbs.includes('list') && !type.verbs.includes('watch')) throw errors.methodNotSupported(resolved.target.groupResource, 'watch');
        this.resolver.method(resolved, 'watch', 'watch');
        return { verb, watch: parseWatchOptions(query, type) };
      case 'get':
      case 'list':
        if (resolved.single) {
          this.resolver.method(resolved, 'get', 'get');
          return { verb: 'get', get: parseGetOptions(query) };
        }
        this.resolver.method(resolved, 'list', 'list');
        return { verb: 'list', list: parseListOptions(query, type) };
      case 'deletecollection': {
        const write = writeOptions(scope);
        // A path that names one object (a namespace's own) deletes that object.
        if (resolved.single) return { verb: 'delete', write };
        this.resolver.method(resolved, 'deleteCollection', 'deletecollection');
        return { verb, write, list: parseListOptions(query, type) };
      }
      case 'create':
      case 'update':
      case 'patch':
      case 'delete':
        return { verb, write: writeOptions(scope) };
      default:
        throw errors.methodNotAllowed();
    }
  }
}

/** The write options the previous pipe parsed for every write verb. */
function writeOptions(scope: Pick<WriteOptionsScope, 'write'>): RequestWriteOptions {
  if (!scope.write) throw errors.methodNotAllowed();
  return scope.write;
}
