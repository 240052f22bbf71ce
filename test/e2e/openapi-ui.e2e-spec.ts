import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium } from 'playwright-core';
import { startTestServer, TestServer } from '../support/test-server';
import { writeTokenFile } from '../support/token-file';

/**
 * The API page at /openapi/ui, over HTTPS as the server serves it and in a real headless
 * Chromium (Debian's /usr/bin/chromium): the page loads, reads /openapi/v3 with the browser's
 * client certificate or a typed bearer token, and lists the RBAC operations.
 */
const CHROMIUM = '/usr/bin/chromium';
const browserMissing = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install chromium)`;
const ROLES = '/apis/rbac.authorization.platform.io/v1/namespaces/{namespace}/roles';

describe('/openapi/ui', () => {
  let server: TestServer;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-ui-tokens-'));
    server = await startTestServer({ options: { tokenAuthFile: writeTokenFile(dir, ['reader-token,reader,reader-uid']) } });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('over HTTPS', () => {
    it('serves the page to anyone, with a policy that loads nothing from elsewhere', async () => {
      const res = await server.anonymous.get('/openapi/ui', { headers: { Accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.text).toContain('<script src="/openapi/ui/swagger-ui-bundle.js"></script>');
      expect(res.text).not.toMatch(/https?:\/\//);
    });

    it('serves Swagger UI from the installed package', async () => {
      const bundle = await server.anonymous.get('/openapi/ui/swagger-ui-bundle.js');
      expect(bundle.status).toBe(200);
      expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(bundle.text).toContain('SwaggerUIBundle');
      expect((await server.anonymous.get('/openapi/ui/swagger-ui.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    });

    it('answers 404 Status for any other file, a path into the package included', async () => {
      for (const path of ['/openapi/ui/package.json', '/openapi/ui/..%2Fpackage.json', '/openapi/ui/index.html']) {
        const res = await server.anonymous.get(path);
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: expect.objectContaining({ kind: 'Status', reason: 'NotFound', code: 404 }) });
      }
    });

    it('leaves the documents it reads to authenticated users', async () => {
      const res = await server.anonymous.get('/openapi/v3');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', message: 'forbidden: User "system:anonymous" cannot get path "/openapi/v3"' });
    });
  });

  (browserMissing ? describe.skip : describe)('in headless Chromium', () => {
    let profile: string;
    let context: BrowserContext | undefined;

    /** A fresh browser with an empty profile, presenting `clientCertificates` when given. */
    const browser = async (clientCertificates: Array<{ origin: string; cert: Buffer; key: Buffer }> = []) => {
      profile = mkdtempSync(join(tmpdir(), 'platform-ui-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        ignoreHTTPSErrors: true,
        clientCertificates,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      return context.pages()[0] ?? (await context.newPage());
    };
    afterEach(async () => {
      await context?.close();
      context = undefined;
      rmSync(profile, { recursive: true, force: true });
    });

    /** The paths of the operations the page lists. */
    const listedPaths = async (page: Awaited<ReturnType<typeof browser>>) => {
      await page.locator('.opblock-summary-path').first().waitFor({ timeout: 30000 });
      return page.locator('.opblock-summary-path').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-path') ?? n.textContent ?? ''));
    };

    it('lists the RBAC operations for a user who types a bearer token', async () => {
      const page = await browser();
      await page.goto(`${server.url}/openapi/ui`);
      await page.locator('#status').filter({ hasText: 'need an authenticated user' }).waitFor();
      await page.fill('#token', 'reader-token');
      await page.click('#credentials button');
      const paths = await listedPaths(page);
      expect(paths).toEqual(expect.arrayContaining([ROLES, `${ROLES}/{name}`, '/apis/rbac.authorization.platform.io/v1/clusterrolebindings']));
      expect(await page.locator('.opblock-get .opblock-summary-method').first().textContent()).toBe('GET');
    });

    it('lists them for a browser presenting a client certificate, with no token', async () => {
      const identity = server.certFor('carol', ['developers']);
      const page = await browser([{ origin: server.url, cert: Buffer.from(identity.cert!), key: Buffer.from(identity.key!) }]);
      await page.goto(`${server.url}/openapi/ui`);
      const paths = await listedPaths(page);
      expect(paths).toEqual(expect.arrayContaining([ROLES, '/apis/rbac.authorization.platform.io/v1/clusterroles/{name}']));
    });
  });

  if (browserMissing) {
    it.skip(`in headless Chromium: skipped, ${browserMissing}`, () => undefined);
  }
});
