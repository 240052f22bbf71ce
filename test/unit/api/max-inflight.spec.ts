import { EventEmitter } from 'node:events';
import type { NextFunction, Response } from 'express';
import { InflightLimiter, MaxInflightMiddleware } from '../../../src/endpoints/filters/max-inflight.middleware';
import { isHealthProbe, isLongRunning } from '../../../src/endpoints/request/long-running';
import { ApiRequest } from '../../../src/endpoints/request/request-scope';
import { resolveRequestInfo } from '../../../src/endpoints/request/request-info';
import { scopeFor } from '../../support/request-scope';
import { ResourceRegistry } from '../../../src/registry/resources/registry';
import { StatusError } from '../../../src/apimachinery/errors';
import { defaultOptions } from '../../../src/config/options';
import { metricsRegistry } from '../../../src/metrics/registry';

const registry = { isServed: () => true } as unknown as ResourceRegistry;

function request(method: string, url: string, groups: string[] = ['system:authenticated']): ApiRequest {
  return {
    method,
    path: url.split('?')[0],
    headers: {},
    query: {},
    scope: scopeFor(method, url, { username: 'someone', groups }),
  } as unknown as ApiRequest;
}

/** A response that closes when told. */
function response(): Response & { close(): void } {
  const res = new EventEmitter() as EventEmitter & { destroyed: boolean; close(): void };
  res.destroyed = false;
  res.close = () => {
    res.destroyed = true;
    res.emit('close');
  };
  return res as unknown as Response & { close(): void };
}

/** Runs the stage; undefined when it let the request through, else the error it ended it with. */
function admit(stage: MaxInflightMiddleware, req: ApiRequest, res = response()): StatusError | undefined {
  const next = jest.fn() as jest.MockedFunction<NextFunction>;
  stage.use(req, res, next);
  expect(next).toHaveBeenCalledTimes(1);
  return next.mock.calls[0][0] as unknown as StatusError | undefined;
}

async function droppedCount(kind: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('apiserver_dropped_requests_total')!.get();
  return metric.values.find((v) => v.labels.request_kind === kind)?.value ?? 0;
}

describe('long-running requests (kube-apiserver LongRunningFunc)', () => {
  it('are watches, proxies and the streaming subresources', () => {
    expect(isLongRunning(resolveRequestInfo('GET', '/api/v1/namespaces/a/configmaps?watch=true', { watch: 'true' }))).toBe(true);
    expect(isLongRunning(resolveRequestInfo('GET', '/api/v1/namespaces/a/pods/p/log', {}))).toBe(true);
    expect(isLongRunning(resolveRequestInfo('POST', '/api/v1/namespaces/a/pods/p/exec', {}))).toBe(true);
    expect(isLongRunning(resolveRequestInfo('GET', '/api/v1/namespaces/a/configmaps', {}))).toBe(false);
    expect(isLongRunning(resolveRequestInfo('GET', '/healthz', {}))).toBe(false);
    expect(isHealthProbe(resolveRequestInfo('GET', '/readyz/informer-sync', {}))).toBe(true);
    expect(isHealthProbe(resolveRequestInfo('GET', '/healthzz', {}))).toBe(false);
  });
});

describe('InflightLimiter', () => {
  it('counts each kind against its own limit, 0 meaning none', () => {
    const limiter = new InflightLimiter({ readOnly: 2, mutating: 0 });
    expect([limiter.tryAcquire('readOnly'), limiter.tryAcquire('readOnly'), limiter.tryAcquire('readOnly')]).toEqual([true, true, false]);
    for (let i = 0; i < 1000; i++) expect(limiter.tryAcquire('mutating')).toBe(true);
    limiter.release('readOnly');
    expect(limiter.count('readOnly')).toBe(1);
    expect(limiter.tryAcquire('readOnly')).toBe(true);
  });
});

describe('the in-flight limit stage (kube WithMaxInFlightLimit)', () => {
  const stage = () => new MaxInflightMiddleware(defaultOptions({ maxRequestsInFlight: 1, maxMutatingRequestsInFlight: 1 }), registry);

  it("refuses a request beyond its kind's limit with kube's 429 and frees the place when the response closes", async () => {
    const limits = stage();
    const held = response();
    expect(admit(limits, request('GET', '/api/v1/namespaces/a/configmaps'), held)).toBeUndefined();
    const before = await droppedCount('readOnly');
    const refused = admit(limits, request('GET', '/api'))!;
    expect(refused.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    expect(refused.headers).toEqual({ 'Retry-After': '1' });
    expect(await droppedCount('readOnly')).toBe(before + 1);
    // Writes have places of their own.
    expect(admit(limits, request('POST', '/api/v1/namespaces/a/configmaps'))).toBeUndefined();
    held.close();
    expect(admit(limits, request('GET', '/api'))).toBeUndefined();
  });

  it('lets watches, health probes and system:masters through when full', () => {
    const limits = stage();
    expect(admit(limits, request('GET', '/api/v1/namespaces/a/configmaps'))).toBeUndefined();
    expect(admit(limits, request('GET', '/api/v1/namespaces/a/configmaps')) instanceof StatusError).toBe(true);
    expect(admit(limits, request('GET', '/api/v1/namespaces/a/configmaps', ['system:masters']))).toBeUndefined();
    const watch = { ...request('GET', '/api/v1/configmaps'), scope: scopeFor('GET', '/api/v1/configmaps?watch=true', undefined, { query: { watch: 'true' } }) } as unknown as ApiRequest;
    expect(admit(limits, watch)).toBeUndefined();
    expect(admit(limits, request('GET', '/livez'))).toBeUndefined();
    expect(admit(limits, request('GET', '/readyz/ping'))).toBeUndefined();
  });

  it('frees the place of a client gone before the stage at once', () => {
    const limits = stage();
    const gone = response();
    gone.close();
    expect(admit(limits, request('GET', '/api'), gone)).toBeUndefined();
    expect(admit(limits, request('GET', '/api'))).toBeUndefined();
  });
});
