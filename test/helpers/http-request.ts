import { type RequestOptions, request } from 'node:http';

/**
 * One HTTP request (to a loopback port or a Unix socket, in `options`) with `body` sent, if any:
 * its status and its whole body, read as utf8.
 */
export function httpRequest(
  options: RequestOptions,
  body?: string | Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body === undefined) req.end();
    else req.end(body);
  });
}
