import { createServer } from 'node:net';
import { isIPv6 } from 'node:net';
import { FlagError } from '../config/flags';

/** The HTTPS port, held from the start's first steps until the server listens on it. */
export interface PortReservation {
  /** The port held (the one picked when 0 was asked for). */
  port: number;
  release(): Promise<void>;
}

function hostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * Binds the port before anything slow happens, so a port in use (or an address that is not
 * this host's) stops the start at once, before the store is opened, and a second server
 * started meanwhile on the same port fails as fast. Connections that arrive before the
 * server listens are closed.
 */
export async function reservePort(port: number, host: string): Promise<PortReservation> {
  const holder = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      holder.once('error', reject);
      holder.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const at = `failed to listen on ${hostPort(host, port)}`;
    if (code === 'EADDRINUSE') throw FlagError.about('--secure-port', `${at}: address already in use`);
    if (code === 'EACCES') throw FlagError.about('--secure-port', `${at}: permission denied`);
    if (code === 'EADDRNOTAVAIL') throw FlagError.about('--bind-address', `${at}: the address is not one of this host's`);
    throw FlagError.about('--bind-address', `${at}: ${(err as Error).message}`);
  }
  let released: Promise<void> | undefined;
  return {
    port: (holder.address() as import('node:net').AddressInfo).port,
    release: () => (released ??= new Promise<void>((resolve) => holder.close(() => resolve()))),
  };
}
