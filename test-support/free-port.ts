import net from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. Nothing listens on it when this returns, so it
 * also serves as "a port where nothing answers" (a model server that is down).
 */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
