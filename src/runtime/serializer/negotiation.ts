import { errors } from '../../apimachinery/errors';
import { MediaType, parseAccept } from './media-type';

/**
 * Output negotiation as kube-apiserver does it (endpoints/handlers/negotiation): the Accept
 * clauses are tried in preference order against the serializers the kind supports, and a
 * clause asking for a transformed rendering (`as=Table`, `as=PartialObjectMetadata[List]`)
 * is only taken when that rendering exists for the serializer, so the client's fallback
 * entries apply otherwise (kubectl's `g=meta.k8s.io` entries, protobuf + Table, ...).
 */

export const JSON_MEDIA = 'application/json';
export const YAML_MEDIA = 'application/yaml';
export const PROTOBUF_MEDIA = 'application/vnd.platform.protobuf';
/** The group of Table and PartialObjectMetadata. */
export const META_GROUP = 'meta.platform.io';
/**
 * kube's name of that group, which kubectl and client-go hard-code in their Accept headers
 * (`as=Table;v=v1;g=meta.k8s.io`): answered as well, with the renderings in that group.
 */
export const KUBE_META_GROUP = 'meta.k8s.io';
const META_GROUPS = [META_GROUP, KUBE_META_GROUP] as const;
export type MetaGroup = (typeof META_GROUPS)[number];
/** kube serves the transformed renderings in meta v1 and v1beta1. */
export const META_VERSIONS = ['v1', 'v1beta1'] as const;
export type MetaVersion = (typeof META_VERSIONS)[number];

export type SerializerName = 'json' | 'yaml' | 'protobuf';

interface SerializerInfo {
  name: SerializerName;
  mediaType: string;
  /** Watch streams: JSON keeps its media type, protobuf adds `;stream=watch`; YAML has none. */
  streamMediaType?: string;
}

const SERIALIZERS: SerializerInfo[] = [
  { name: 'json', mediaType: JSON_MEDIA, streamMediaType: JSON_MEDIA },
  { name: 'yaml', mediaType: YAML_MEDIA },
  { name: 'protobuf', mediaType: PROTOBUF_MEDIA, streamMediaType: `${PROTOBUF_MEDIA};stream=watch` },
];

/** What a kind can be rendered as. */
export interface RenderCapabilities {
  /** The kind names protobuf messages. */
  protobuf: boolean;
  /** The kind prints as a Table (kube: its storage is a TableConvertor). */
  table: boolean;
}

/** Capabilities of a request that names no kind (non-resource paths, early errors). */
export const SERVER_CAPABILITIES: RenderCapabilities = { protobuf: true, table: false };

export type TransformKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** A rendering other than the object itself, in <group>/<version> of the meta group asked for. */
export interface Transform {
  kind: TransformKind;
  group: MetaGroup;
  version: MetaVersion;
}

/** The negotiated response encoding of one request. */
export interface ResponseFormat {
  serializer: SerializerName;
  /** The Content-Type of the response (a watch's stream type for watches). */
  mediaType: string;
  transform?: Transform;
  /** `pretty=1` as a media type parameter. */
  pretty: boolean;
}

function supported(caps: RenderCapabilities): SerializerInfo[] {
  return SERIALIZERS.filter((s) => s.name !== 'protobuf' || caps.protobuf);
}

function matches(clause: MediaType, serializer: SerializerInfo): boolean {
  const [type, subtype] = clause.type.split('/');
  const [sType, sSubtype] = serializer.mediaType.split('/');
  return (type === sType && (subtype === sSubtype || subtype === '*')) || (type === '*' && subtype === '*');
}

function isMetaVersion(v: string | undefined): v is MetaVersion {
  return (META_VERSIONS as readonly string[]).includes(v ?? '');
}

function isMetaGroup(g: string | undefined): g is MetaGroup {
  return (META_GROUPS as readonly string[]).includes(g ?? '');
}

/**
 * kube's acceptMediaTypeOptions + AllowsMediaTypeTransform: the clause's parameters for
 * this serializer, or undefined when the clause cannot be served by it.
 */
function acceptClause(
  clause: MediaType,
  serializer: SerializerInfo,
  caps: RenderCapabilities,
  allowTransforms: boolean,
  allowStream: boolean,
): Omit<ResponseFormat, 'mediaType'> | undefined {
  const { as, g, v, stream, pretty } = clause.params;
  if (stream && (!allowStream || stream !== 'watch' || !serializer.streamMediaType)) return undefined;
  const format: Omit<ResponseFormat, 'mediaType'> = { serializer: serializer.name, pretty: pretty === '1' };
  const wantsConversion = as !== undefined || g !== undefined || v !== undefined;
  if (!wantsConversion) return format;
  if (!allowTransforms || !isMetaGroup(g) || !isMetaVersion(v)) return undefined;
  if (as === 'Table') {
    // Table has no protobuf form; it exists only for kinds that print.
    if (!caps.table || serializer.name === 'protobuf') return undefined;
  } else if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') {
    return undefined;
  }
  return { ...format, transform: { kind: as, group: g, version: v } };
}

type Acceptable = { format: Omit<ResponseFormat, 'mediaType'>; serializer: SerializerInfo; response?: Readonly<ResponseFormat>; watch?: Readonly<ResponseFormat> } | undefined;

/**
 * Clients send a handful of distinct Accept headers: each is read once per combination of
 * capabilities and allowances (bounded), and the formats made of it are kept with it, so a
 * request looks its format up without building a key or an object.
 */
const acceptableMemo = new Map<string, Acceptable[]>();
const MAX_MEMO = 256;
const NO_ACCEPT = '';

function firstAcceptable(accept: string | undefined, caps: RenderCapabilities, allowTransforms: boolean, allowStream: boolean): Acceptable {
  const variant = (caps.protobuf ? 8 : 0) | (caps.table ? 4 : 0) | (allowTransforms ? 2 : 0) | (allowStream ? 1 : 0);
  let variants = acceptableMemo.get(accept ?? NO_ACCEPT);
  if (variants === undefined) {
    if (acceptableMemo.size >= MAX_MEMO) acceptableMemo.clear();
    acceptableMemo.set(accept ?? NO_ACCEPT, (variants = []));
  }
  if (variant in variants) return variants[variant];
  const found = readAccept(accept, caps, allowTransforms, allowStream);
  variants[variant] = found;
  return found;
}

function readAccept(accept: string | undefined, caps: RenderCapabilities, allowTransforms: boolean, allowStream: boolean): Acceptable {
  const serializers = supported(caps);
  if (!accept || !accept.trim()) return { format: { serializer: 'json', pretty: false }, serializer: serializers[0] };
  for (const clause of parseAccept(accept)) {
    for (const serializer of serializers) {
      if (!matches(clause, serializer)) continue;
      const format = acceptClause(clause, serializer, caps, allowTransforms, allowStream);
      if (format) return { format, serializer };
    }
  }
  return undefined;
}

/**
 * The media types listed in a 406 for a kind: its serializers, or for a watch those that
 * can stream, each with `;stream=watch` (kube's MediaTypesForSerializer).
 */
export function acceptedMediaTypes(caps: RenderCapabilities, watch = false): string[] {
  return supported(caps).flatMap((s) => (!watch ? [s.mediaType] : s.streamMediaType ? [`${s.mediaType};stream=watch`] : []));
}

/**
 * The response format for a request, decided before any work: 406 NotAcceptable when no
 * Accept clause can be served. A watch then also needs a serializer that can stream.
 */
export function negotiateResponse(accept: string | undefined, caps: RenderCapabilities, watch = false): ResponseFormat {
  const picked = firstAcceptable(accept, caps, true, true);
  if (!picked) throw errors.notAcceptable(acceptedMediaTypes(caps));
  // Shared by every request with this Accept header: frozen, so none can change another's.
  if (!watch) return (picked.response ??= Object.freeze({ ...picked.format, mediaType: picked.serializer.mediaType }));
  if (!picked.serializer.streamMediaType) throw errors.notAcceptable(acceptedMediaTypes(caps, true));
  return (picked.watch ??= Object.freeze({ ...picked.format, mediaType: picked.serializer.streamMediaType }));
}

/**
 * The serializer of an error Status: the Accept header read without transforms or
 * streams (kube's DefaultEndpointRestrictions); JSON when nothing else fits.
 */
export function negotiateErrorSerializer(accept: string | undefined, caps: RenderCapabilities): SerializerName {
  return firstAcceptable(accept, caps, false, false)?.format.serializer ?? 'json';
}

/** `pretty` query parameter (Go's strconv.ParseBool), else kube's browser and CLI user agents. */
export function prettyRequested(query: Record<string, unknown>, userAgent: string | undefined): boolean {
  const raw = query.pretty;
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value === 'string' && value !== '') return ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
