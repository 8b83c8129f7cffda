import type { GitHubEmulator } from '../../src/emulators/github/index.js';

/** One request as a client sent it to the emulator. */
interface TapedRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: string;
}

/** What a run sent to an emulator, and what the emulator held after it. */
export interface EmulatorTape {
  requests: TapedRequest[];
  /** The emulator's request log, `METHOD path` a line, as the run left it. */
  log: string[];
  /** The emulator's issues, pull requests, comments and labels, timestamps left out. */
  state: string;
}

/**
 * Records every request sent through `emulator.fetch` from now on. Wrap before any client takes the
 * fetch (a client keeps the function it was given). `tape()` is what was sent until then.
 */
export function recordRequests(emulator: GitHubEmulator): { tape(): EmulatorTape } {
  const requests: TapedRequest[] = [];
  const serve = emulator.fetch;
  emulator.fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push({
      url: request.url,
      method: request.method,
      headers: [...request.headers],
      body: await request.clone().text(),
    });
    return serve(input, init);
  };
  return {
    tape: () => ({ requests: [...requests], log: requestLog(emulator), state: emulatorState(emulator) }),
  };
}

/**
 * Sends a tape's requests, one after another, to an emulator seeded as the recorded one was: the
 * emulator is deterministic, so it ends in the recorded state. Throws if its log or state differ
 * (a run whose requests overlapped in a way the replay does not repeat).
 */
export async function replayRequests(emulator: GitHubEmulator, tape: EmulatorTape): Promise<void> {
  for (const request of tape.requests) {
    const response = await emulator.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === '' ? {} : { body: request.body }),
    });
    await response.arrayBuffer();
  }
  const log = requestLog(emulator);
  if (log.join('\n') !== tape.log.join('\n')) {
    throw new Error(`replay: the request log differs from the recorded one:\n${log.join('\n')}`);
  }
  if (emulatorState(emulator) !== tape.state) throw new Error('replay: the emulator state differs');
}

function requestLog(emulator: GitHubEmulator): string[] {
  return emulator.requests.map((r) => `${r.method} ${r.path} ${r.status}`);
}

const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

/** The issues and PRs (with comments and labels) an emulator holds, in one string without timestamps. */
export function emulatorState(emulator: GitHubEmulator): string {
  const issues: unknown[] = [];
  for (let number = 1; emulator.issue(number) !== undefined; number++) {
    issues.push([emulator.issue(number), emulator.comments(number), emulator.labelsOf(number)]);
  }
  return JSON.stringify([issues, emulator.pulls(), emulator.repoLabels()]).replace(TIMESTAMP, 'T');
}
