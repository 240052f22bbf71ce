import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'platform:isPublic';

/**
 * Marks an endpoint every caller may reach, authenticated or not (health, version).
 * Everything else goes through the authorizer chain: deny by default.
 */
export const Public = () => SetMetadata(IS_PUBLIC, true);
