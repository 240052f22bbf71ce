import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { dirname, join } from 'node:path';
import { errors } from '../apimachinery/errors';
import { API_PAGE_HTML, API_PAGE_SCRIPT } from './api-page';

/** Swagger UI's files the page loads, served from the installed package (no CDN). */
const SWAGGER_UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * The page loads nothing from elsewhere and runs no inline script; Swagger UI sets inline
 * styles and data: images.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

/**
 * GET /openapi/ui: a browsable page of the API (Swagger UI reading /openapi/v3). The page and
 * its files hold nothing about this server, so the default policy lets anyone load them
 * (system:public-info-viewer); the documents it reads need an authenticated user, by the
 * browser's client certificate or a bearer token typed into the page.
 */
@Controller('openapi/ui')
export class OpenApiUiController {
  private readonly swaggerUiDir = dirname(require.resolve('swagger-ui-dist/package.json'));

  @Get()
  page(@Res() res: Response): void {
    res.set(PAGE_HEADERS).type('html').send(API_PAGE_HTML);
  }

  @Get(':file')
  file(@Param('file') file: string, @Res() res: Response): void {
    if (file === 'api-page.js') {
      res.set(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(API_PAGE_SCRIPT);
      return;
    }
    // Only the listed files: a name is never a path into the package.
    const type = Object.hasOwn(SWAGGER_UI_FILES, file) ? SWAGGER_UI_FILES[file] : undefined;
    if (!type) throw errors.pathNotFound();
    res.set({ ...PAGE_HEADERS, 'Cache-Control': 'public, max-age=3600' }).type(type).sendFile(join(this.swaggerUiDir, file));
  }
}
