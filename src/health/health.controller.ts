import { Controller, Get, Logger, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { errors } from '../apimachinery/errors';
import { Public } from '../apimachinery/public.decorator';
import { HealthChecks, Probe } from './health-checks';

function list(v: unknown): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

/** kube's warn-level header; /healthz stays served for old probes. */
export const HEALTHZ_DEPRECATED = '299 - "/healthz is deprecated since v1.16; use /livez and /readyz"';

/** A wildcard route parameter: the path segments after the probe, joined again. */
function checkName(param: string | string[]): string {
  return Array.isArray(param) ? param.join('/') : param;
}

/** /livez, /readyz, /healthz in kube's plain-text format; open to every caller. */
@Public()
@Controller()
export class HealthController {
  private readonly logger = new Logger('Healthz');

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

  /** Deprecated since 1.16 but still served, with kube's healthz checks, and a warning saying so. */
  @Get('healthz')
  healthz(@Query() q: Record<string, unknown>, @Res() res: Response) {
    res.setHeader('Warning', HEALTHZ_DEPRECATED);
    return this.respond('healthz', undefined, q, res);
  }

  @Get('healthz/*check')
  healthzCheck(@Param('check') check: string | string[], @Query() q: Record<string, unknown>, @Res() res: Response) {
    res.setHeader('Warning', HEALTHZ_DEPRECATED);
    return this.respond('healthz', checkName(check), q, res);
  }

  private async respond(probe: Probe, only: string | undefined, q: Record<string, unknown>, res: Response) {
    if (only !== undefined && !this.checks.names(probe).includes(only)) throw errors.pathNotFound();
    const excluded = list(q.exclude);
    const outcomes = await this.checks.run(probe, only, only === undefined ? excluded : []);
    const healthy = outcomes.every((o) => o.ok);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (only !== undefined) {
      // One check: its reason is given (kube guards these paths by authorization; ours are worded to be safe to show).
      res.status(healthy ? 200 : 500).end(healthy ? 'ok' : `internal server error: ${outcomes[0].error}\n`);
      return;
    }
    const lines = outcomes.map((o) => (o.excluded ? `[+]${o.name} excluded: ok` : o.ok ? `[+]${o.name} ok` : `[-]${o.name} failed: reason withheld`));
    const unmatched = [...new Set(excluded)].filter((name) => !outcomes.some((o) => o.name === name)).sort();
    if (unmatched.length) lines.push(`warn: some health checks cannot be excluded: no matches for ${unmatched.map((n) => JSON.stringify(n)).join(',')}`);
    if (!healthy) {
      const failed = outcomes.filter((o) => !o.ok);
      this.logger.debug(`${failed.map((o) => o.name).join(',')} check failed: ${probe}\n${failed.map((o) => `[-]${o.name} failed: ${o.error}`).join('\n')}`);
      // Always verbose on failure.
      res.status(500).end(`${lines.join('\n')}\n${probe} check failed\n`);
      return;
    }
    res.status(200).end(q.verbose === undefined ? 'ok' : `${lines.join('\n')}\n${probe} check passed\n`);
  }
}
