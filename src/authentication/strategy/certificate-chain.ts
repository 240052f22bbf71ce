import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM bundle (a CA file). */
export function certificatesOf(pem: string): X509Certificate[] {
  return (pem.match(PEM_CERTIFICATE) ?? []).map((block) => new X509Certificate(block));
}

/** The peer's certificate and the others it presented (and Node completed from the trust store), leaf first. */
function peerChain(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(new X509Certificate(cert.raw));
    cert = cert.issuerCertificate;
  }
  return chain;
}

const signedBy = (cert: X509Certificate, issuer: X509Certificate) => cert.checkIssued(issuer) && cert.verify(issuer.publicKey);

/**
 * Whether the connection's client certificate chains to one of `roots`. The TLS layer has
 * verified the chain against the union of every client authority (dates included); this
 * says which pool it ends in, as kube verifies the x509 and the request-header
 * authenticators' certificates each against its own pool.
 */
export function chainsTo(socket: TLSSocket, roots: readonly X509Certificate[]): boolean {
  const chain = peerChain(socket);
  let current = chain[0];
  for (let depth = 0; current && depth < chain.length; depth++) {
    if (roots.some((root) => signedBy(current, root))) return true;
    const leaf = current;
    current = chain.find((candidate) => candidate !== leaf && candidate.ca && signedBy(leaf, candidate))!;
  }
  return false;
}

/** kube's x509 authenticator checks validity at every request, so a kept-alive connection outlives no certificate. */
export const CERTIFICATE_EXPIRED = 'x509: certificate has expired or is not yet valid';
