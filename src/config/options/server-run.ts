import { bool, duration, flag, nonNegativeInt, SECTION, subsystem } from './flag';

/** An int flag kube's ServerRunOptions.Validate refuses below zero, in its words. */
const limit = nonNegativeInt((flag) => `${flag} can not be negative value`);

/** kube's ServerRunOptions: how much is served at once, for how long, and how the server starts and stops. */
export const serverRun = subsystem({
  section: SECTION.generic,
  flags: {
    /** Post-start hooks not finished yet do not fail /livez this long after start. */
    livezGracePeriodMs: flag({
      name: 'livez-grace-period',
      ...duration,
      default: 0,
      usage:
        "This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver's start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.",
    }),
    /** Writes served at once before 429s; 0: no limit. */
    maxMutatingRequestsInFlight: flag({
      name: 'max-mutating-requests-inflight',
      ...limit,
      default: 200,
      usage: 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
    }),
    /** Reads (get, list) served at once before 429s; 0: no limit. */
    maxRequestsInFlight: flag({
      name: 'max-requests-inflight',
      ...limit,
      default: 400,
      usage: 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
    }),
    /** A watch without timeoutSeconds ends between it and twice it. */
    minRequestTimeoutSeconds: flag({
      name: 'min-request-timeout',
      ...limit,
      default: 1800,
      usage:
        'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.',
    }),
    /** A request that is not long-running gets 504 after it. */
    requestTimeoutMs: flag({
      name: 'request-timeout',
      ...duration,
      default: 60_000,
      usage:
        'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.',
    }),
    /** After SIGTERM, /readyz fails but requests are still served this long. */
    shutdownDelayMs: flag({
      name: 'shutdown-delay-duration',
      ...duration,
      default: 0,
      usage:
        'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.',
    }),
    /** After the delay, answer new requests 429 with Retry-After until in-flight ones finish. */
    shutdownSendRetryAfter: flag({
      name: 'shutdown-send-retry-after',
      ...bool,
      default: false,
      usage:
        "If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a 'Retry-After' response header, in addition 'Connection: close' response header is set in order to tear down the TCP connection when idle.",
    }),
    /** How long open watches may run on once the listener closed. */
    shutdownWatchTerminationGracePeriodMs: flag({
      name: 'shutdown-watch-termination-grace-period',
      ...duration,
      default: 0,
      usage:
        'This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.',
    }),
    migrateOnly: flag({ name: 'migrate-only', ...bool, default: false, usage: 'Apply the database migrations and exit.' }),
  },
});
