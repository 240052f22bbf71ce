import { ResourceType } from '../../runtime/schema/resource-type';
import { configMapType } from './config-map';
import { nodeType } from './node';
import { persistentVolumeClaimType } from './persistent-volume-claim';
import { persistentVolumeType } from './persistent-volume';
import { podType } from './pod';
import { secretType } from './secret';
import { serviceAccountType } from './service-account';

/** The core kinds authentication and the Node authorizer need, served generically under /api/v1. */
export const CORE_KINDS: ResourceType[] = [
  configMapType,
  nodeType,
  persistentVolumeClaimType,
  persistentVolumeType,
  podType,
  secretType,
  serviceAccountType,
];
