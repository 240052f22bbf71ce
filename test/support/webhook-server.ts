import { writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certificates';

export interface RecordedReview {
  authorization?: string;
  body: any;
}

/** What the webhook answers: an HTTP status and a JSON body, or `hang` to never answer. */
export type WebhookReply = { status: number; body: unknown } | 'hang';

export interface TestWebhook {
  url: string;
  caPem: string;
  recorded: RecordedReview[];
  /** A kubeconfig pointing at this webhook (CA data, bearer token), written into `dir`. */
  writeKubeconfig(dir: string, name?: string, token?: string): string;
  close(): Promise<void>;
}

/** A SubjectAccessReview answer of the given version. */
export function reviewReply(version: string, status: Record<string, unknown>): WebhookReply {
  return { status: 200, body: { apiVersion: `authorization.platform.io/${version}`, kind: 'SubjectAccessReview', status } };
}

/** A TokenReview answer of the given version. */
export function tokenReviewReply(version: string, status: Record<string, unknown>): WebhookReply {
  return { status: 200, body: { apiVersion: `authentication.platform.io/${version}`, kind: 'TokenReview', status } };
}

/**
 * A local HTTPS webhook (authorization or token authentication) with a CA of its own; records
 * every review it gets. An answer may be a promise: the review is held until it settles.
 */
export async function startTestWebhook(answer: (review: any) => WebhookReply | Promise<WebhookReply>): Promise<TestWebhook> {
  const ca = createCertificateAuthority();
  const serving = issueServingCertificate(ca.certPem, ca.keyPem, '127.0.0.1');
  const recorded: RecordedReview[] = [];
  const server = https.createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text);
      recorded.push({ authorization: req.headers.authorization, body });
      void Promise.resolve(answer(body)).then((reply) => {
        if (reply === 'hang' || res.destroyed) return;
        res.writeHead(reply.status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(reply.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  return {
    url,
    caPem: ca.certPem,
    recorded,
    writeKubeconfig(dir, name = 'webhook.kubeconfig', token = 'webhook-token') {
      const path = join(dir, name);
      writeFileSync(
        path,
        [
          'apiVersion: v1',
          'kind: Config',
          `clusters: [{name: authz, cluster: {server: "${url}", certificate-authority-data: "${Buffer.from(ca.certPem).toString('base64')}"}}]`,
          `users: [{name: apiserver, user: {token: "${token}"}}]`,
          'contexts: [{name: webhook, context: {cluster: authz, user: apiserver}}]',
          'current-context: webhook',
        ].join('\n'),
      );
      return path;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The value of one sample line of a Prometheus text page (`name{labels} value`), or undefined. */
export function metricSample(page: string, series: string): number | undefined {
  const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(page);
  return m ? Number(m[1]) : undefined;
}
