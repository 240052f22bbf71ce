import { ReviewObject } from '../reviews/review-types';
import { Subject } from '../apis/rbac/types';
import { BindingReference, BlockedSubject, RoleReference } from './access-types';

/** AccessMatrixReview: who may do which verbs on which resources in one namespace (rakkess's matrix, for every subject). */

/** One resource of the matrix, named as in ResourceAttributes. */
export interface MatrixResource {
  group?: string;
  resource?: string;
  subresource?: string;
}

/** Which subjects the answer keeps: a large cluster's cluster-wide grants name thousands. */
export interface MatrixSubjectFilter {
  kind?: string;
  nameContains?: string;
}

export interface AccessMatrixReviewSpec {
  resources?: MatrixResource[];
  verbs?: string[];
  subjectFilter?: MatrixSubjectFilter;
}

export const MATRIX_SUBJECT_KINDS = ['User', 'Group', 'ServiceAccount'];

/** The resources and verbs one binding grants its subjects in the namespace. */
export interface MatrixGrant {
  binding: BindingReference;
  role: RoleReference;
  subjects: Subject[];
  resources: Array<MatrixResource & { verbs: string[] }>;
}

export type MatrixBlockedSubject = BlockedSubject & MatrixResource & { verb: string };

export interface AccessMatrixReviewStatus {
  grants: MatrixGrant[];
  blocked?: MatrixBlockedSubject[];
  incomplete: boolean;
  evaluationError?: string;
}

export type AccessMatrixReview = ReviewObject<AccessMatrixReviewSpec>;

/** The verbs asked when the spec names none: kube's standard ones, as rakkess shows them. */
export const DEFAULT_MATRIX_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
/** One question is at most this many cells (resources times verbs), each one who-can. */
export const MAX_MATRIX_RESOURCES = 200;
export const MAX_MATRIX_VERBS = 20;
