import { StatusError } from '../../apimachinery/errors';
import { apiVersionOf, ResourceType } from '../schema/resource-type';
import { partialObjectMetadata, parseIncludeObject, toTable } from '../table/table';
import { isPlainObject, KubeList, KubeObject } from '../../apimachinery/types';
import { tableDefinitionOf } from './kind-rendering';
import { Transform } from './negotiation';

/** The request a body is rendered for: its kind and query (Table options). */
export interface RenderTarget {
  type: ResourceType;
  query: Record<string, unknown>;
  /** The clock AGE columns read; now by default. */
  now?: Date;
}

function isList(body: Record<string, unknown>): boolean {
  return Array.isArray(body.items);
}

/** kube's errNotAcceptable for a rendering that does not fit the body. */
function notAcceptable(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

/** Checks the options a transform reads from the query (a bad includeObject is a 400). */
export function checkTransformOptions(transform: Transform | undefined, query: Record<string, unknown>): void {
  if (transform?.kind === 'Table') parseIncludeObject(query);
}

/**
 * The body in the negotiated rendering (kube's transformObject): a Table, a
 * PartialObjectMetadata or its list; a Status is never transformed.
 */
export function transformBody(transform: Transform | undefined, body: unknown, target: RenderTarget, tableHeaders = true): unknown {
  if (!transform || !isPlainObject(body) || body.kind === 'Status') return body;
  const apiVersion = `${transform.group}/${transform.version}`;
  const kindName = String(body.kind ?? target.type.kind);
  switch (transform.kind) {
    case 'Table':
      return toTable(body as unknown as KubeObject | KubeList, tableDefinitionOf(target.type), {
        apiVersion,
        includeObject: parseIncludeObject(target.query),
        objectApiVersion: apiVersionOf(target.type),
        objectKind: target.type.kind,
        headers: tableHeaders,
        now: target.now ?? new Date(),
      });
    case 'PartialObjectMetadata':
      if (isList(body)) throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${kindName})`);
      return partialObjectMetadata(body as unknown as KubeObject, apiVersion);
    case 'PartialObjectMetadataList': {
      if (!isList(body)) throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${kindName})`);
      const list = body as unknown as KubeList;
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion,
        metadata: list.metadata,
        items: list.items.map((item) => partialObjectMetadata(item, apiVersion)),
      };
    }
  }
}
