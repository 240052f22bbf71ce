import { once } from 'node:events';
import { AddressInfo, createServer, Socket } from 'node:net';
import { MessageChannel } from 'node:worker_threads';
import { yieldToEventLoop } from '../../../src/runtime/offload/loop-turn';

/** Holds the event loop, as one stage of a large request does. */
const holdLoop = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('yielding to the event loop between the stages of a large request', () => {
  it('lets a request that arrived during a stage run in an I/O callback (a thread answer) in before the next stage', async () => {
    const order: string[] = [];
    const server = createServer((socket) => socket.on('data', () => order.push('probe')));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const prober = new Socket();
    prober.connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(prober, 'connect');
    const answer = new MessageChannel();
    try {
      const done = new Promise<void>((resolve) => {
        answer.port2.once('message', async () => {
          // The stage runs in the callback of a message, as a codec or engine thread's answer
          // does; meanwhile a liveness probe's request arrives (written to the kernel at once).
          prober.write('GET /livez\r\n');
          holdLoop(20);
          await yieldToEventLoop();
          order.push('next stage');
          resolve();
        });
      });
      answer.port1.postMessage('decoded');
      await done;
      expect(order).toEqual(['probe', 'next stage']);
    } finally {
      answer.port1.close();
      prober.destroy();
      server.close();
    }
  });
});
