// A hostile sandboxed process: tries every way out to the host's services that issue 29 found open,
// directly and through the egress proxy, and an honest request or two. Every target is loopback (the
// private ranges are refused by the same rule, tested on address strings in egress-rules.test.ts). Prints one JSON line:
// { attempt: outcome }, where an outcome is `reached …` or `refused …`.
import { connect } from 'node:net';

const cfg = JSON.parse(process.argv[2]);
const marker = cfg.marker;
const TIMEOUT_MS = 4000;

/** Connects, writes `payload`, and reports what came back (or why nothing did). */
function talk(options, payload, until = (text) => text.length > 0) {
  return new Promise((resolve) => {
    let answer = '';
    let connected = false;
    const socket = connect(options);
    const done = (outcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => done(connected ? `reached (silent) ${answer}` : 'refused timeout'),
      TIMEOUT_MS,
    );
    socket.on('connect', () => {
      connected = true;
      socket.write(payload);
    });
    socket.setEncoding('utf8').on('data', (chunk) => {
      answer += chunk;
      if (until(answer)) done(`reached ${answer.split('\r\n')[0]}`);
    });
    socket.on('error', (err) => done(connected ? `reached then ${err.code}` : `refused ${err.code}`));
    socket.on('close', () =>
      done(connected ? `reached (closed) ${answer.split('\r\n')[0]}` : 'refused closed'),
    );
  });
}

const redisSet = `*3\r\n$3\r\nSET\r\n$${marker.length}\r\n${marker}\r\n$1\r\n1\r\n`;
const httpGet = (path, host = 'x') => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
const proxy = { host: '127.0.0.1', port: 3128 };

/** CONNECT through the proxy; only a 200 counts as reached, and then `payload` goes down the tunnel. */
function tunnel(authority, payload) {
  return new Promise((resolve) => {
    const socket = connect(proxy);
    let answer = '';
    let open = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`refused timeout ${answer.split('\r\n')[0]}`);
    }, TIMEOUT_MS);
    const finish = (outcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    socket.on('connect', () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    socket.setEncoding('utf8').on('data', (chunk) => {
      answer += chunk;
      if (!open && answer.includes('\r\n\r\n')) {
        const status = answer.split('\r\n')[0];
        if (!status.includes(' 200 ')) return finish(`refused ${status}`);
        open = true;
        answer = '';
        socket.write(payload);
        return;
      }
      if (open && answer.length > 0)
        finish(`reached ${answer.split('\r\n')[0]} ${answer.split('\r\n\r\n')[1] ?? ''}`);
    });
    socket.on('error', (err) => finish(`refused ${err.code}`));
    socket.on('close', () =>
      finish(open ? `reached (closed) ${answer}` : `refused ${answer.split('\r\n')[0]}`),
    );
  });
}

/** A plain-HTTP request to the proxy with an absolute URL. */
const viaProxy = (url) =>
  talk(proxy, httpGet(url, new URL(url).host), (text) => text.includes('\r\n\r\n')).then((outcome) =>
    / 200 /.test(outcome) ? outcome : outcome.replace(/^reached/, 'refused'),
  );

const attempts = {
  'direct redis 127.0.0.1': () => talk({ host: '127.0.0.1', port: cfg.redisPort }, redisSet),
  'direct http 127.0.0.1': () => talk({ host: '127.0.0.1', port: cfg.http4Port }, httpGet(`/${marker}`)),
  'direct http localhost': () => talk({ host: 'localhost', port: cfg.http4Port }, httpGet(`/${marker}`)),
  'direct http [::1]': () => talk({ host: '::1', port: cfg.http6Port }, httpGet(`/${marker}`)),
  'abstract unix socket': () => talk({ path: `\0${cfg.abstract}` }, marker),
  'CONNECT 127.0.0.1 redis': () => tunnel(`127.0.0.1:${cfg.redisPort}`, redisSet),
  'CONNECT [::1] http': () => tunnel(`[::1]:${cfg.http6Port}`, httpGet(`/${marker}`)),
  'CONNECT rebind.test (resolves to 127.0.0.1)': () => tunnel('rebind.test:80', httpGet(`/${marker}`)),
  'CONNECT localhost': () => tunnel('localhost:80', httpGet(`/${marker}`)),
  'CONNECT 2130706433 (127.0.0.1 as a number)': () => tunnel('2130706433:80', httpGet(`/${marker}`)),
  'GET via proxy 127.0.0.1': () => viaProxy(`http://127.0.0.1:${cfg.http4Port}/${marker}`),
  'GET via proxy rebind.test': () => viaProxy(`http://rebind.test/${marker}`),
};
if (cfg.honest) {
  attempts['honest GET'] = () => viaProxy(`http://${cfg.honest}/ok-${marker}`);
  attempts['honest CONNECT'] = () => tunnel(`${cfg.honest}:443`, httpGet(`/tls-${marker}`, cfg.honest));
}
if (cfg.modelPort) {
  attempts['model port'] = () =>
    talk({ host: '127.0.0.1', port: cfg.modelPort }, httpGet(`/v1/models?from=${marker}`), (t) =>
      t.includes('\r\n\r\n'),
    );
}

const results = {};
await Promise.all(
  Object.entries(attempts).map(async ([name, attempt]) => {
    results[name] = await attempt();
  }),
);
console.log(JSON.stringify(results));
