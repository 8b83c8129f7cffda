import { afterEach, describe, expect, it } from 'vitest';
import { type ParsedMessagesRequest, reply } from '../../src/emulators/anthropic/index.js';
import { DEFAULT_TOKEN } from '../../src/emulators/github/index.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { useRunFixture } from './run-fixture.js';

// A run of two issues on the emulators, exported to a loopback OTLP receiver: the span tree
// run → round → session → model call → tool call, a model fallback as a second model-call span,
// git and GitHub spans, the metrics, and nothing secret or from the prompt in any attribute.

const run = useRunFixture({ 'greet.js': "export const greet = () => 'helo';\n" });
const PRIMARY = 'claude-sonnet-5-5';
const FALLBACK = 'claude-haiku-5-5';
const ISSUE_BODY = 'greet() says helo; the staging password is hunter2-not-in-telemetry';
const HEADER_SECRET = 'otlp-key-93b1d5e7c2a4';

const ARGS = [
  'run',
  '--repo',
  'octo-org/widgets',
  '--set',
  'empty_rounds=1',
  '--set',
  'poll_interval=1s',
  '--set',
  `model.primary=${PRIMARY}`,
  '--set',
  `model.fallbacks=[${FALLBACK}]`,
  '--set',
  'verify.command=grep -q "\'hello\'" greet.js',
  '--set',
  'log_level=warn',
];

const fixTypo = reply.toolUse([
  {
    name: 'str_replace_based_edit_tool',
    input: { command: 'str_replace', path: 'greet.js', old_str: "'helo'", new_str: "'hello'" },
  },
]);

/** The primary is overloaded (so every call fails over); the fallback fixes the typo with one tool call. */
function script(request: ParsedMessagesRequest) {
  if (request.model === PRIMARY) return reply.error(529, 'overloaded_error', 'Overloaded');
  return request.messages.length === 1 ? fixTypo : reply.text('Fixed the typo.');
}

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function childrenOf(spans: readonly ReceivedSpan[], parent: ReceivedSpan | undefined): ReceivedSpan[] {
  return spans.filter((s) => parent !== undefined && s.parentSpanId === parent.spanId);
}

async function tracedRun(protocol: 'http/protobuf' | 'http/json') {
  const otlp = await startOtlpReceiver();
  receiver = otlp;
  const issues = [1, 2].map(() =>
    run.github.addIssue({
      title: 'Greeting typo',
      body: ISSUE_BODY,
      author: 'octocat',
      authorAssociation: 'MEMBER',
      labels: ['issueloop'],
    }),
  );
  const { env } = await run.start(script);
  const result = await runInProcess(ARGS, {
    cwd: run.fx.checkout,
    env: {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${HEADER_SECRET}`,
    },
  });
  return { otlp, issues, result, env };
}

describe('telemetry of a run (OTLP to a loopback receiver)', () => {
  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`two issues, a tool call and a model fallback: the span tree and its attributes, nothing secret nor prompt text (${protocol})`, {
      timeout: 30_000,
    }, async () => {
      const { otlp, issues, result, env } = await tracedRun(protocol);
      // The failover is the one warning; telemetry adds none.
      const warnings = result.stderr.split('\n').filter((line) => line !== '');
      expect(warnings.length).toBeGreaterThan(0);
      expect(warnings.every((line) => line.includes('failover: switching from'))).toBe(true);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('resolved 2, failed 0');
      const { spans } = otlp;
      const runSpan = spans.find((s) => s.name === 'issueloop.run');
      expect(runSpan?.parentSpanId).toBe('');
      expect(runSpan?.attributes).toMatchObject({
        'issueloop.repo': 'octo-org/widgets',
        'issueloop.stop': 'empty_backlog',
      });
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([runSpan?.traceId]));
      const rounds = childrenOf(spans, runSpan).filter((s) => s.name === 'issueloop.round');
      expect(rounds.length).toBeGreaterThanOrEqual(1);
      const sessions = rounds
        .flatMap((r) => childrenOf(spans, r))
        .filter((s) => s.name === 'issueloop.session');
      expect(sessions.map((s) => s.attributes['issueloop.issue.number']).sort()).toEqual(issues);
      for (const session of sessions) {
        expect(session.attributes).toMatchObject({
          'issueloop.outcome': 'resolved',
          'issueloop.attempt': 1,
          'issueloop.model': FALLBACK,
        });
        expect(session.attributes['issueloop.cost_usd']).toBeGreaterThan(0);
        const below = spans.filter((s) => isBelow(spans, s, session));
        const chats = below.filter((s) => s.name.startsWith('chat '));
        const answered = chats.filter((s) => s.name === `chat ${FALLBACK}`);
        expect(answered).toHaveLength(2);
        expect(answered[0]?.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': FALLBACK,
          'gen_ai.response.finish_reasons': ['tool_use'],
        });
        expect(answered[0]?.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
        const tools = below.filter((s) => s.name === 'execute_tool str_replace_based_edit_tool');
        expect(tools).toHaveLength(1);
        expect(tools[0]?.attributes).toMatchObject({ 'gen_ai.tool.name': 'str_replace_based_edit_tool' });
        expect(below.some((s) => s.name === 'git push')).toBe(true);
        expect(below.some((s) => s.name.startsWith('github '))).toBe(true);
      }
      // The fallback: the first call tried the primary (overloaded), a span of its own with the other
      // model, in the first session; the primary cools down, so the rest went to the fallback.
      const primary = spans.filter((s) => s.name === `chat ${PRIMARY}`);
      expect(primary).toHaveLength(1);
      expect(primary[0]?.attributes).toMatchObject({
        'gen_ai.request.model': PRIMARY,
        'issueloop.error_class': 'overloaded',
      });
      expect(primary[0]?.status.code).toBe(2);
      expect(sessions.some((session) => isBelow(spans, primary[0] as ReceivedSpan, session))).toBe(true);
      expect(
        otlp.points.some(
          (p) => p.metric === 'gen_ai.client.token.usage' && p.attributes['gen_ai.token.type'] === 'output',
        ),
      ).toBe(true);
      expect(otlp.points.find((p) => p.metric === 'issueloop.sessions')).toMatchObject({
        value: 2,
        attributes: { 'issueloop.outcome': 'resolved' },
      });
      expect(otlp.headers[0]?.['x-api-key']).toBe(HEADER_SECRET);
      noSecretNorText(otlp, [DEFAULT_TOKEN, env.ANTHROPIC_API_KEY as string, HEADER_SECRET]);
    });
  }
});

/** No secret and no prompt, issue, file or answer text in any span or metric attribute. */
function noSecretNorText(otlp: OtlpReceiver, secrets: readonly string[]): void {
  const exported = JSON.stringify([otlp.spans, otlp.points]);
  // Anchor: the export is there and names what it should.
  expect(exported).toContain('execute_tool str_replace_based_edit_tool');
  for (const secret of secrets) expect(exported).not.toContain(secret);
  for (const text of [
    'hunter2-not-in-telemetry',
    'greet() says helo',
    "'hello'",
    'Fixed the typo',
    'You are',
  ]) {
    expect(exported).not.toContain(text);
  }
}

function isBelow(spans: readonly ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  let parent = byId.get(span.parentSpanId);
  for (let depth = 0; parent && depth < 50; depth++) {
    if (parent.spanId === ancestor.spanId) return true;
    parent = byId.get(parent.parentSpanId);
  }
  return false;
}
