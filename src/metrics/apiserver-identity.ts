import { createHash, randomUUID } from 'node:crypto';

/** This process's API server identity, as kube names it (`apiserver-<uuid>`). */
export const APISERVER_ID = `apiserver-${randomUUID()}`;

/** The `apiserver_id_hash` label kube puts on configuration-reload metrics. */
export const APISERVER_ID_HASH = `sha256:${createHash('sha256').update(APISERVER_ID).digest('hex')}`;
