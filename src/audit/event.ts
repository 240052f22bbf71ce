import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { AuditLevel, AuditResponseStatus } from './audit-context';
import { isPlainObject } from '../apimachinery/types';
import type { UserInfo } from '../apimachinery/user-info';
import { goQuote } from '../apimachinery/go-text';
import { AUDIT_API_VERSION, AuditStage } from './policy';

/** kube's audit.k8s.io/v1 UserInfo of an event. */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** kube's audit.k8s.io/v1 AuthenticationMetadata. */
export interface AuditAuthenticationMetadata {
  impersonationConstraint?: string;
}

/** An audit event, its fields in kube's order (which is the order they are written in). */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  /** How the request was authenticated: the constrained impersonation verb that allowed impersonatedUser. */
  authenticationMetadata?: AuditAuthenticationMetadata;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

export interface AuditEventList {
  kind: 'EventList';
  apiVersion: string;
  metadata: Record<string, never>;
  items: AuditEvent[];
}

export function eventList(items: AuditEvent[]): AuditEventList {
  return { kind: 'EventList', apiVersion: AUDIT_API_VERSION, metadata: {}, items };
}

export function auditUser(user: UserInfo | undefined): AuditUser {
  if (!user) return {};
  const out: AuditUser = { username: user.username };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

/** Go's MicroTime (RFC 3339 with microseconds, UTC) of now. */
export function microTimestamp(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

/** An IPv4-mapped IPv6 address as Go prints it (plain IPv4). */
function plainIp(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** kube's utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, each once. */
export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(',') : (v ?? '');
  };
  for (const part of header('x-forwarded-for').split(',')) {
    const ip = part.trim();
    if (ip && isIP(ip)) ips.push(plainIp(ip));
  }
  const real = header('x-real-ip').trim();
  if (real && isIP(real) && !ips.includes(plainIp(real))) ips.push(plainIp(real));
  const peer = req.socket?.remoteAddress;
  if (peer && !ips.includes(plainIp(peer))) ips.push(plainIp(peer));
  return ips;
}

const MAX_USER_AGENT_LENGTH = 1024;

/** kube keeps at most 1024 characters of a User-Agent. */
export function userAgentOf(req: IncomingMessage): string | undefined {
  const ua = req.headers['user-agent'];
  if (!ua) return undefined;
  return ua.length > MAX_USER_AGENT_LENGTH ? `${ua.slice(0, MAX_USER_AGENT_LENGTH)}...TRUNCATED` : ua;
}

/** A copy of a body without `metadata.managedFields` (of a list's items too), for omitManagedFields. */
export function withoutManagedFields(body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  let out: Record<string, unknown> = body;
  if (isPlainObject(body.metadata) && 'managedFields' in body.metadata) {
    const { managedFields: _omitted, ...metadata } = body.metadata;
    out = { ...body, metadata };
  }
  if (Array.isArray(body.items)) out = { ...out, items: body.items.map(withoutManagedFields) };
  return out;
}

/** kube's log backend line in the legacy format. */
export function legacyEventLine(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups?.length) groups = ev.user.groups.map(goQuote).join(',');
  }
  let asUser = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    asUser = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asGroups = ev.impersonatedUser.groups.map(goQuote).join(',');
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  const q = goQuote;
  return (
    `${ev.requestReceivedTimestamp} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} user=${q(username)} ` +
    `groups=${q(groups)} as=${q(asUser)} asgroups=${q(asGroups)} user-agent=${q(ev.userAgent ?? '')} namespace=${q(namespace)} uri=${q(ev.requestURI)} response="${response}"`
  );
}
