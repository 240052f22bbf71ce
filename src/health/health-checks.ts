import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';

export type Probe = 'livez' | 'readyz';

interface Check {
  name: string;
  probes: Probe[];
  run: () => Promise<void> | void;
}

export interface CheckOutcome {
  name: string;
  ok: boolean;
  excluded: boolean;
}

/**
 * The named checks behind /livez, /readyz and /healthz. Feature modules register theirs
 * (storage registers a database ping); each runs as a terminus health indicator.
 */
@Injectable()
export class HealthChecks {
  private readonly checks: Check[] = [];
  private shuttingDown = false;

  constructor(private readonly indicators: HealthIndicatorService) {
    this.register('ping', ['livez', 'readyz'], () => undefined);
    this.register('shutdown', ['readyz'], () => {
      if (this.shuttingDown) throw new Error('server is shutting down');
    });
  }

  register(name: string, probes: Probe[], run: () => Promise<void> | void): void {
    this.checks.push({ name, probes, run });
  }

  /** Readiness fails from now on, so load balancers drain this replica before it stops. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  names(probe: Probe): string[] {
    return this.checks.filter((c) => c.probes.includes(probe)).map((c) => c.name);
  }

  async run(probe: Probe, only: string | undefined, exclude: string[]): Promise<CheckOutcome[]> {
    const selected = this.checks.filter((c) => c.probes.includes(probe) && (only === undefined || c.name === only));
    return Promise.all(
      selected.map(async (check) => {
        if (exclude.includes(check.name)) return { name: check.name, ok: true, excluded: true };
        const result = await this.indicate(check);
        return { name: check.name, ok: result[check.name].status === 'up', excluded: false };
      }),
    );
  }

  private async indicate(check: Check): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(check.name);
    try {
      await check.run();
      return session.up();
    } catch (err) {
      return session.down({ message: (err as Error).message });
    }
  }
}
