import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { errors } from '../apimachinery/errors';
import { Public } from '../apimachinery/public.decorator';
import { HealthChecks, Probe } from './health-checks';

function list(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** A wildcard route parameter: the path segments after the probe, joined again. */
function checkName(param: string | string[]): string {
  return Array.isArray(param) ? param.join('/') : param;
}

/** /livez, /readyz, /healthz in kube's plain-text format; open to every caller. */
@Public()
@Controller()
export class HealthController {
  constructor(private readonly checks: HealthChecks) {}

  @Get('livez')
  livez(@Query() q: Record<string, unknown>, @Res() res: Response) {
    return this.respond('livez', undefined, q, res);
  }

  /** One check; names may contain slashes (`poststarthook/rbac/bootstrap-roles`). */
  @Get('livez/*check')
  livezCheck(@Param('check') check: string | string[], @Query() q: Record<string, unknown>, @Res() res: Response) {
    return this.respond('livez', checkName(check), q, res);
  }

  @Get('readyz')
  readyz(@Query() q: Record<string, unknown>, @Res() res: Response) {
    return this.respond('readyz', undefined, q, res);
  }

  @Get('readyz/*check')
  readyzCheck(@Param('check') check: string | string[], @Query() q: Record<string, unknown>, @Res() res: Response) {
    return this.respond('readyz', checkName(check), q, res);
  }

  /** Deprecated since 1.16 but still served, with the readiness checks. */
  @Get('healthz')
  healthz(@Query() q: Record<string, unknown>, @Res() res: Response) {
    return this.respond('readyz', undefined, q, res, 'healthz');
  }

  private async respond(probe: Probe, only: string | undefined, q: Record<string, unknown>, res: Response, label: string = probe) {
    if (only !== undefined && !this.checks.names(probe).includes(only)) throw errors.pathNotFound();
    const outcomes = await this.checks.run(probe, only, list(q.exclude));
    const healthy = outcomes.every((o) => o.ok);
    const verbose = q.verbose !== undefined || !healthy;
    let body: string;
    if (!verbose) body = 'ok';
    else {
      const lines = outcomes.map((o) => (o.excluded ? `[+]${o.name} excluded: ok` : o.ok ? `[+]${o.name} ok` : `[-]${o.name} failed: reason withheld`));
      lines.push(healthy ? `${label} check passed` : `${label} check failed`);
      body = lines.join('\n') + '\n';
    }
    res.status(healthy ? 200 : 500).setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(body);
  }
}
