import { errors } from '../errors';
import { isPlainObject } from '../types';
import { parseJson } from '../codec/codecs';
import { DeleteOptions, WriteOptions } from './storage';
import { UserInfo } from '../../authentication/user-info';

function values(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** `dryRun` is empty or `All`; anything else is a 400, as the conventions say. */
export function parseDryRun(query: Record<string, unknown>, fromBody: unknown = undefined): boolean {
  const all = [...values(query.dryRun), ...(Array.isArray(fromBody) ? fromBody.map(String) : [])];
  for (const v of all) {
    if (v !== 'All' && v !== '') throw errors.badRequest(`dryRun: Unsupported value: ${JSON.stringify(v)}: supported values: "All"`);
  }
  return all.includes('All');
}

/** `If-Match: "42"` (or W/"42", or 42) names the version a PUT or PATCH must apply to. */
export function parseIfMatch(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '' || header.trim() === '*') return undefined;
  const value = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  if (!/^\d+$/.test(value)) throw errors.badRequest(`If-Match: invalid resource version ${JSON.stringify(header)}`);
  return value;
}

export function parseWriteOptions(query: Record<string, unknown>, user: UserInfo, ifMatch?: string): WriteOptions {
  const fieldManager = values(query.fieldManager)[0];
  if (fieldManager !== undefined && fieldManager.length > 128) {
    throw errors.badRequest('fieldManager: Too long: may not be more than 128 bytes');
  }
  return { user, dryRun: parseDryRun(query), fieldManager, ifMatch: parseIfMatch(ifMatch) };
}

/** DeleteOptions from the body (kubectl sends them) merged with query parameters. */
export function parseDeleteOptions(query: Record<string, unknown>, body: Buffer | undefined, user: UserInfo): DeleteOptions {
  let fromBody: Record<string, unknown> = {};
  if (body && body.length && body.toString('utf8').trim()) {
    const parsed = parseJson(body.toString('utf8'));
    if (!isPlainObject(parsed)) throw errors.badRequest('DeleteOptions must be a JSON object');
    fromBody = parsed;
  }
  const preconditions = isPlainObject(fromBody.preconditions) ? fromBody.preconditions : undefined;
  const propagationPolicy = (fromBody.propagationPolicy as string | undefined) ?? values(query.propagationPolicy)[0];
  if (propagationPolicy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(propagationPolicy)) {
    throw errors.badRequest(
      `propagationPolicy: Unsupported value: ${JSON.stringify(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const graceRaw = fromBody.gracePeriodSeconds ?? values(query.gracePeriodSeconds)[0];
  const gracePeriodSeconds = graceRaw === undefined ? undefined : Number(graceRaw);
  if (gracePeriodSeconds !== undefined && !Number.isInteger(gracePeriodSeconds)) {
    throw errors.badRequest(`gracePeriodSeconds: Invalid value: ${JSON.stringify(graceRaw)}: must be an integer`);
  }
  return {
    user,
    dryRun: parseDryRun(query, fromBody.dryRun),
    preconditions: preconditions
      ? {
          uid: typeof preconditions.uid === 'string' ? preconditions.uid : undefined,
          resourceVersion: typeof preconditions.resourceVersion === 'string' ? preconditions.resourceVersion : undefined,
        }
      : undefined,
    propagationPolicy,
    gracePeriodSeconds,
  };
}
