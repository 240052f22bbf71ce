import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The layering of src/ as Go would enforce it between packages: no two folders import each
 * other, directly or through others. A folder is the path below src/ cut at two levels
 * (src/api/resources; src/api for the files directly in src/api; src for src/main.ts), a
 * parent and its child are different folders, and every relative import counts (type-only
 * imports and re-exports too). Shared API machinery (src/apimachinery) imports nothing of
 * ours outside itself.
 */

const ROOT = join(__dirname, '..', '..', '..');
const SRC = join(ROOT, 'src');

/** Every module specifier of a file: imports (type-only too), re-exports, side-effect and dynamic imports. */
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Import {
  from: string;
  specifier: string;
  /** The file a relative specifier names; undefined for packages. */
  target?: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The .ts file a relative specifier names (`./x`, `./x.js`, or a folder's index.ts); other files as named. */
function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [`${base}.ts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && statSync(c, { throwIfNoEntry: false })?.isFile()) ?? base;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => {
    const specifier = m[1] ?? m[2];
    return specifier.startsWith('.') ? { from: file, specifier, target: resolveRelative(file, specifier) } : { from: file, specifier };
  });
}

/** The folder a file belongs to: src plus at most two levels below it. */
function folderOf(src: string, file: string): string {
  const parts = relative(src, dirname(file)).split(sep).filter(Boolean);
  return ['src', ...parts.slice(0, 2)].join('/');
}

/** Each group of folders that import each other in a circle, with the imports that join them. */
function folderCycles(src: string): string[] {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(src)) {
    for (const { target } of importsOf(file)) {
      if (!target || !target.startsWith(src + sep)) continue;
      const [a, b] = [folderOf(src, file), folderOf(src, target)];
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      const via = edges.get(a)!;
      via.set(b, [...(via.get(b) ?? []), `${relative(dirname(src), file)} -> ${relative(dirname(src), target)}`]);
    }
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return components.map((members) => {
    const joining = members.flatMap((a) => members.flatMap((b) => edges.get(a)?.get(b) ?? []));
    return [members.join(' <-> '), ...joining.map((e) => `  ${e}`)].join('\n');
  });
}

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const PACKAGES = new Set(Object.keys(packageJson.dependencies ?? {}));

/** The npm package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]);
}

describe('folder layering', () => {
  it('has no import cycle between folders of src/', () => {
    expect(folderCycles(SRC)).toEqual([]);
  });

  it('keeps src/apimachinery free of imports outside itself, besides node built-ins and npm dependencies', () => {
    const machinery = join(SRC, 'apimachinery');
    const outside = sourceFiles(machinery)
      .flatMap(importsOf)
      .filter(({ specifier, target }) => (target ? !target.startsWith(machinery + sep) : !isBuiltin(specifier) && !PACKAGES.has(packageOf(specifier))))
      .map(({ from, specifier }) => `${relative(ROOT, from)}: '${specifier}'`);
    expect(outside).toEqual([]);
  });

  describe('the walk itself', () => {
    let src: string;
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(src, path)), { recursive: true });
      writeFileSync(join(src, path), text);
    };

    beforeEach(() => {
      src = join(mkdtempSync(join(tmpdir(), 'folder-cycles-')), 'src');
    });
    afterEach(() => rmSync(dirname(src), { recursive: true, force: true }));

    it('names a cycle through type-only imports and re-exports, with the imports that close it', () => {
      write('a/x.ts', "import type { Y } from '../b/y';\nexport type X = Y;\n");
      write('b/y.ts', "export { z as y } from '../c';\nexport type Y = string;\n");
      write('c/index.ts', "import { x } from '../a/x.js';\nexport const z = x;\n");
      write('d/free.ts', "import { Y } from '../b/y';\nexport const free: Y = '';\n");
      expect(folderCycles(src)).toEqual(['src/a <-> src/b <-> src/c\n  src/a/x.ts -> src/b/y.ts\n  src/b/y.ts -> src/c/index.ts\n  src/c/index.ts -> src/a/x.ts']);
    });

    it('counts a folder and its subfolder as two, and cuts deeper folders at two levels', () => {
      write('api/registry.ts', "import { Storage } from './resources/storage';\nexport type Registry = Storage;\n");
      write('api/resources/storage.ts', "import './deep/more/leaf';\nexport type Storage = string;\n");
      write('api/resources/deep/more/leaf.ts', "const load = () => import('../../../registry');\nexport { load };\n");
      write('main.ts', "import { Registry } from './api/registry';\nexport const main: Registry = '';\n");
      expect(folderCycles(src)).toEqual([
        'src/api <-> src/api/resources\n  src/api/registry.ts -> src/api/resources/storage.ts\n  src/api/resources/deep/more/leaf.ts -> src/api/registry.ts',
      ]);
    });

    it('finds nothing when imports only go one way', () => {
      write('api/types.ts', 'export type T = string;\n');
      write('api/resources/storage.ts', "import { T } from '../types';\nexport const s: T = '';\n");
      write('server/start.ts', "import { s } from '../api/resources/storage';\nexport const started = s;\n");
      expect(folderCycles(src)).toEqual([]);
    });
  });
});
