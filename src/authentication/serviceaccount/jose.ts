import { pathToFileURL } from 'node:url';
import { importModule } from '../../cel/cel-library';

/** The `jose` library (JWS, JWT, JWK), published as ES modules only: loaded once with import(). */
export type Jose = typeof import('jose');

let loading: Promise<Jose> | undefined;

export function loadJose(): Promise<Jose> {
  loading ??= importModule(pathToFileURL(require.resolve('jose')).href) as Promise<Jose>;
  return loading;
}
