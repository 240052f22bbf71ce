import { parseMediaType } from '../serializer/media-type';
import { errors } from '../../apimachinery/errors';

/** The patch formats a PATCH request selects by its Content-Type. */
export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** In the order kube lists them in its 415 answer. */
export const PATCH_MEDIA_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const BY_MEDIA_TYPE: Record<string, PatchType> = {
  [JSON_PATCH]: 'json',
  [MERGE_PATCH]: 'merge',
  [STRATEGIC_MERGE_PATCH]: 'strategic',
  [APPLY_PATCH]: 'apply',
};

/** The patch type of a Content-Type (parameters such as charset ignored); anything else is 415. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const type = BY_MEDIA_TYPE[parseMediaType(contentType ?? '').type];
  if (!type) throw errors.unsupportedMediaType(PATCH_MEDIA_TYPES);
  return type;
}

export function isApplyPatch(contentType: string | undefined): boolean {
  return BY_MEDIA_TYPE[parseMediaType(contentType ?? '').type] === 'apply';
}

/** The patch type of a JSON, merge or strategic merge patch; apply has its own path (415 otherwise). */
export function nonApplyPatchType(contentType: string | undefined): Exclude<PatchType, 'apply'> {
  const type = patchTypeOf(contentType);
  if (type === 'apply') throw errors.unsupportedMediaType(PATCH_MEDIA_TYPES.filter((t) => t !== APPLY_PATCH));
  return type;
}
