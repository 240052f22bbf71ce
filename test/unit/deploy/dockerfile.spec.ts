import { Copy, DockerfileParser, Instruction } from 'dockerfile-ast';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * The container image, checked without a Docker daemon: the Dockerfile parsed into its
 * stages, and each stage's instructions compared with what the repository holds.
 */
const ROOT = join(__dirname, '..', '..', '..');
const dockerfile = DockerfileParser.parse(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

interface Stage {
  name: string | null;
  instructions: Instruction[];
}

/** The instructions of each stage, in order (everything after one FROM up to the next). */
function stages(): Stage[] {
  const out: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const args = instruction.getArguments().map((a) => a.getValue());
      out.push({ name: args[1]?.toUpperCase() === 'AS' ? args[2] : null, instructions: [] });
    } else if (out.length) {
      out[out.length - 1].instructions.push(instruction);
    }
  }
  return out;
}

const keyword = (stage: Stage, name: string) => stage.instructions.filter((i) => i.getKeyword() === name);
const args = (i: Instruction) => i.getArguments().map((a) => a.getValue());
/** COPY's sources, destination and the stage it copies from (none: the build context). */
const copyParts = (i: Instruction) => {
  const values = args(i);
  return { sources: values.slice(0, -1), destination: values[values.length - 1], from: (i as Copy).getFromFlag()?.getValue() ?? undefined };
};
const workdir = (stage: Stage, before: Instruction) => {
  const dirs = keyword(stage, 'WORKDIR').filter((w) => w.getRange().start.line < before.getRange().start.line);
  return dirs.length ? args(dirs[dirs.length - 1])[0] : '/';
};

/** .dockerignore patterns as the build context applies them to a top-level path. */
function isIgnored(path: string): boolean {
  const top = path.replace(/^\.\//, '').split('/')[0];
  return ignored.some((pattern) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`).test(top));
}

/** The embedded store's data-directory template, as `npm run build` makes it. */
const TEMPLATE = 'dist/db-template';
const BUILD_TEMPLATE = `node dist/src/storage/engine/build-template.js ${TEMPLATE} migrations`;

describe('the Dockerfile', () => {
  const all = stages();
  const build = all[0];
  const runtime = all[all.length - 1];

  it('builds in one stage and runs from another', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(build.name).toBe('build');
    expect(keyword(build, 'RUN').map((r) => r.getArgumentsContent())).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b/), expect.stringMatching(/tsc -p tsconfig\.build\.json/)]),
    );
  });

  it('ships only production dependencies: the build stage prunes the development ones before the runtime copies them', () => {
    const runs = keyword(build, 'RUN').map((r) => r.getArgumentsContent() ?? '');
    expect(runs.some((r) => /npm prune --omit=dev/.test(r))).toBe(true);
    const modules = keyword(runtime, 'COPY').map(copyParts).find((c) => c.sources.some((s) => s.endsWith('/node_modules')));
    expect(modules?.from).toBe('build');
    expect(keyword(runtime, 'RUN').map((r) => r.getArgumentsContent())).not.toEqual(expect.arrayContaining([expect.stringMatching(/npm (ci|install)/)]));
  });

  it('runs as a non-root user, with the entrypoint, port and no health check', () => {
    const users = keyword(runtime, 'USER').map((u) => args(u)[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1]).not.toMatch(/^(root|0)(:|$)/);
    const entrypoint = keyword(runtime, 'ENTRYPOINT');
    expect(entrypoint).toHaveLength(1);
    expect(JSON.parse(entrypoint[0].getArgumentsContent()!)).toEqual(['node', 'dist/src/main.js']);
    expect(keyword(runtime, 'EXPOSE').flatMap(args)).toEqual(['6443']);
    expect(dockerfile.getInstructions().filter((i) => i.getKeyword() === 'HEALTHCHECK')).toEqual([]);
    // The server listens beyond the container's loopback and keeps its data in the volume.
    const cmd = JSON.parse(keyword(runtime, 'CMD')[0].getArgumentsContent()!);
    expect(cmd).toEqual(expect.arrayContaining(['--bind-address=0.0.0.0', '--data-dir=/var/lib/platform-authz']));
    expect(keyword(runtime, 'VOLUME').map((v) => v.getArgumentsContent())).toEqual(['["/var/lib/platform-authz"]']);
  });

  it('makes the embedded store\'s template after compiling, as npm run build does, and ships it', () => {
    const runs = keyword(build, 'RUN').map((r) => r.getArgumentsContent() ?? '');
    const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build as string;
    expect(script).toContain(BUILD_TEMPLATE);
    const run = runs.find((r) => r.includes(BUILD_TEMPLATE));
    expect(run).toBeDefined();
    // After tsc: the builder is its output.
    expect(run!.indexOf('tsc -p tsconfig.build.json')).toBeGreaterThanOrEqual(0);
    expect(run!.indexOf('tsc -p tsconfig.build.json')).toBeLessThan(run!.indexOf(BUILD_TEMPLATE));
    const copied = keyword(runtime, 'COPY').map(copyParts).find((c) => c.sources.includes(`/src/${TEMPLATE}`));
    expect(copied).toEqual({ sources: [`/src/${TEMPLATE}`], destination: `./${TEMPLATE}`, from: 'build' });
  });

  it('copies from the build context only paths that exist and that .dockerignore lets through', () => {
    const copied = all.flatMap((stage) => keyword(stage, 'COPY').map(copyParts)).filter((c) => !c.from);
    expect(copied.length).toBeGreaterThan(0);
    expect(dockerfile.getInstructions().filter((i) => i.getKeyword() === 'ADD')).toEqual([]);
    for (const source of copied.flatMap((c) => c.sources)) {
      expect({ source, exists: existsSync(join(ROOT, source)), ignored: isIgnored(source) }).toEqual({ source, exists: true, ignored: false });
    }
  });

  it('copies from the build stage only what that stage made: copied sources, the install, or compiled sources', () => {
    for (const stage of all.slice(1)) {
      for (const copy of keyword(stage, 'COPY')) {
        const { sources, from } = copyParts(copy);
        if (!from) continue;
        const origin = all.find((s) => s.name === from);
        expect(origin && all.indexOf(origin) < all.indexOf(stage)).toBe(true);
        for (const source of sources) {
          const relative = posix.relative(workdir(origin!, origin!.instructions[origin!.instructions.length - 1]), source);
          const made = relative === 'node_modules' ? 'installed' : relative === TEMPLATE ? 'template' : relative.startsWith('dist/') ? 'compiled' : 'copied';
          const inputs = keyword(origin!, 'COPY').flatMap((c) => copyParts(c).sources.map((s) => s.replace(/^\.\//, '')));
          // dist/<dir> is the compiled <dir>: tsconfig's outDir is dist and its rootDir the project.
          const input = made === 'compiled' ? relative.slice('dist/'.length).split('/')[0] : relative;
          if (made === 'installed') expect(inputs).toEqual(expect.arrayContaining(['package.json', 'package-lock.json']));
          else if (made === 'template') expect(keyword(origin!, 'RUN').map((r) => r.getArgumentsContent())).toEqual(expect.arrayContaining([expect.stringContaining(BUILD_TEMPLATE)]));
          else expect({ source, inputs }).toEqual({ source, inputs: expect.arrayContaining([input]) });
        }
      }
    }
    expect(existsSync(join(ROOT, 'src', 'main.ts'))).toBe(true);
  });

  it('keeps the dependencies, build output and local data out of the build context', () => {
    for (const path of ['node_modules', 'dist', 'data', '.git', 'test']) expect({ path, ignored: isIgnored(path) }).toEqual({ path, ignored: true });
  });
});
