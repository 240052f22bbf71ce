import type * as CelJs from '@marcbachmann/cel-js/lib/evaluator';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/**
 * The CEL implementation: `@marcbachmann/cel-js`, a maintained, dependency-free CEL for
 * JavaScript. Its `evaluator` entry point is used: it also exports the value classes
 * (Duration, UnsignedInt) that extension functions construct.
 */
export type CelLibrary = typeof CelJs;

/**
 * The library is published as ES modules only and this project is CommonJS, so it is loaded
 * with a real dynamic `import()` (TypeScript would turn a literal one into `require`). The
 * specifier is resolved to an absolute file URL first: code compiled by `new Function` has no
 * module of its own to resolve bare names from.
 */
export function importModule(specifier: string): Promise<unknown> {
  // A fresh source text each time: V8 caches compiled functions by their source, and a
  // cached one would keep the module loader of the sandbox that compiled it first (jest
  // runs each test file in a sandbox of its own).
  const load = new Function('specifier', `return import(specifier); // ${randomUUID()}`) as (s: string) => Promise<unknown>;
  return load(specifier);
}

let loading: Promise<CelLibrary> | undefined;
let loaded: CelLibrary | undefined;

/** Loads the library once; every later call returns the same module. */
export function loadCelLibrary(): Promise<CelLibrary> {
  loading ??= importModule(pathToFileURL(require.resolve('@marcbachmann/cel-js/evaluator')).href).then((module) => {
    loaded = module as CelLibrary;
    return loaded;
  });
  return loading;
}

/** The loaded library; environments are only created after `loadCelLibrary()` resolved. */
export function celLibrary(): CelLibrary {
  if (!loaded) throw new Error('the CEL library is not loaded: await loadCelLibrary() first');
  return loaded;
}
