import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errors } from '../apimachinery/errors';

/** The page's own files (plain ES modules, CSS, HTML), copied beside the compiled controller by the build. */
const ASSETS_DIR = join(__dirname, 'assets');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Libraries the page loads, served from the installed packages (runtime dependencies, no CDN). */
const LIBRARIES: Record<string, string> = {
  'cytoscape.esm.min.mjs': join(dirname(require.resolve('cytoscape')), 'cytoscape.esm.min.mjs'),
};

/**
 * The page loads nothing from elsewhere and runs no inline script; the graph library sets
 * inline styles.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

function typeOf(file: string): string | undefined {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? undefined : TYPES[file.slice(dot)];
}

/**
 * GET /access/: the access explorer, a page that asks the public API with the viewer's own
 * credentials (a client certificate, a typed bearer token, or `kubectl access ui`'s proxy).
 * As the API page's, its files hold nothing about this server, so the default policy lets
 * anyone load them (system:public-info-viewer); every answer it shows needs the viewer's RBAC.
 */
@Controller('access')
export class AccessExplorerController {
  /** The files there are, read once: a name is looked up, never joined into a path. */
  private readonly assets = new Set(existsSync(ASSETS_DIR) ? readdirSync(ASSETS_DIR).filter((f) => typeOf(f)) : []);

  @Get()
  page(@Res() res: Response): void {
    // Relative asset URLs need the trailing slash.
    if (!res.req.originalUrl.split('?')[0].endsWith('/')) {
      res.redirect(301, '/access/');
      return;
    }
    this.send(res, 'index.html');
  }

  @Get(':file')
  file(@Param('file') file: string, @Res() res: Response): void {
    const library = Object.hasOwn(LIBRARIES, file) ? LIBRARIES[file] : undefined;
    if (library) {
      res.set({ ...PAGE_HEADERS, 'Cache-Control': 'public, max-age=3600' }).type('text/javascript; charset=utf-8').sendFile(library);
      return;
    }
    if (!this.assets.has(file)) throw errors.pathNotFound();
    this.send(res, file);
  }

  private send(res: Response, file: string): void {
    const type = typeOf(file);
    if (!type || !this.assets.has(file)) throw errors.pathNotFound();
    res.set(PAGE_HEADERS).type(type).sendFile(join(ASSETS_DIR, file));
  }
}
