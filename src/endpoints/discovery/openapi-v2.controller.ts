import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { OpenApiV2Service, openApiV2Response } from './openapi-v2.service';

@Controller('openapi/v2')
export class OpenApiV2Controller {
  constructor(private readonly openapi: OpenApiV2Service) {}

  @Get()
  document(@Req() req: Request, @Res() res: Response): void {
    const answer = openApiV2Response(this.openapi.spec(), {
      accept: req.headers.accept,
      acceptEncoding: header(req.headers['accept-encoding']),
      ifNoneMatch: header(req.headers['if-none-match']),
      ifModifiedSince: header(req.headers['if-modified-since']),
    });
    // Raw headers: express's res.set would add a charset to the Content-Type, kube's has none.
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res.end(answer.body);
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
