import { ObjectMeta } from '../apimachinery/types';

/**
 * The review kinds of authorization.platform.io/v1 and authentication.platform.io/v1 as
 * they arrive decoded by their schemas: every field optional, a present struct is a
 * non-nil Go pointer, an absent one nil.
 */

export const AUTHORIZATION_GROUP = 'authorization.platform.io';
export const AUTHENTICATION_GROUP = 'authentication.platform.io';
export const REVIEW_VERSION = 'v1';

/** meta/v1 FieldSelectorRequirement and LabelSelectorRequirement share this shape. */
export interface SelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

/** FieldSelectorAttributes and LabelSelectorAttributes share this shape. */
export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: SelectorRequirement[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** What SubjectAccessReview and LocalSubjectAccessReview ask. */
export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

/** What SelfSubjectAccessReview asks: the same attributes, about the caller. */
export interface SelfSubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** A review object as its kind's schema decodes it. */
export interface ReviewObject<Spec> {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: Spec;
  status?: unknown;
}

export type AccessReview = ReviewObject<SubjectAccessReviewSpec>;
export type SelfAccessReview = ReviewObject<SelfSubjectAccessReviewSpec>;
export type RulesReview = ReviewObject<{ namespace?: string }>;
