import * as https from 'node:https';

/**
 * A process of its own that asks the server's /livez (or one of its checks, `/livez/ping`)
 * every `intervalMs` over one kept-alive connection, one question at a time, as a kubelet's
 * liveness probe would, so that nothing the benchmark does in its own process delays a
 * sample. Started with `fork` (bench/livez-samples.ts); on the message 'report' it sends
 * back every sample and exits.
 */
export interface LivezSample {
  /** Wall-clock ms (performance.timeOrigin + now): comparable with the parent's marks. */
  sentAt: number;
  answeredAt: number;
  status: number;
}

export interface SamplerSettings {
  url: string;
  ca: string;
  cert: string;
  key: string;
  /** `/livez` (every check, the store's round trip among them) or `/livez/ping` (only the event loop's turn). */
  path: string;
  intervalMs: number;
}

const wallNow = () => performance.timeOrigin + performance.now();

function sample(agent: https.Agent, url: URL): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
  });
}

async function run(settings: SamplerSettings): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: settings.ca, cert: settings.cert, key: settings.key });
  const url = new URL(settings.path, settings.url);
  const samples: LivezSample[] = [];
  let stopped = false;
  process.on('message', (message) => {
    if (message !== 'report') return;
    stopped = true;
    process.send!(samples, () => process.exit(0));
  });
  // The benchmark ended without asking (it failed): nothing is left running.
  process.on('disconnect', () => process.exit(0));
  process.send!('started');
  while (!stopped) {
    const sentAt = wallNow();
    const status = await sample(agent, url);
    samples.push({ sentAt, answeredAt: wallNow(), status });
    const wait = sentAt + settings.intervalMs - wallNow();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

if (require.main === module) void run(JSON.parse(process.env.LIVEZ_SAMPLER_SETTINGS!) as SamplerSettings);
