import { Injectable } from '@nestjs/common';
import { KubeObject } from '../../apimachinery/types';
import { Target, WriteOptions } from './storage';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionRequest {
  operation: AdmissionOperation;
  target: Target;
  /** The object after defaulting (CREATE/UPDATE) or the stored one (DELETE). */
  object: KubeObject;
  old?: KubeObject;
  options: WriteOptions;
  /**
   * CREATE: the name the request path carried ('' for a POST to a collection, the name for
   * a PUT or apply that creates); `target.name` is the new object's name either way.
   */
  pathName?: string;
}

/** A validating admission plugin: throws a StatusError to refuse. */
export interface AdmissionPlugin {
  readonly name: string;
  admit(request: AdmissionRequest): Promise<void>;
}

/** The admission plugins in registration order; feature modules add theirs at start-up. */
@Injectable()
export class AdmissionChain {
  private readonly plugins: AdmissionPlugin[] = [];

  register(plugin: AdmissionPlugin): void {
    this.plugins.push(plugin);
  }

  async admit(request: AdmissionRequest): Promise<void> {
    for (const plugin of this.plugins) await plugin.admit(request);
  }
}
