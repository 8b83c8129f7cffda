// Prompt-cache efficiency of one scripted 30-turn session: the real agent loop, the real Anthropic
// adapter (with its cache breakpoints) and the real system prompt and tool definitions, against the
// scripted Anthropic-compatible server, which accounts cache reads by prefix as the API does
// (breakpoints, 20-block lookback, 5-minute entries, 1,024-token minimum).
// Prints the share of input tokens served from the cache (target >= 90 %), the input tokens each turn
// sends (all, and uncached), and the session's input cost against the same session without caching.

import { requireDist } from './lib.mjs';

requireDist('cache', 'agent/agent-loop.js');
const { createAgent } = await import('../dist/agent/agent-loop.js');
const { DEFAULT_LIMITS } = await import('../dist/agent/limits.js');
const { renderSystemPrompt } = await import('../dist/agent/system-prompt.js');
const { createToolset } = await import('../dist/agent/tools/toolset.js');
const { createAnthropicModel } = await import('../dist/model/anthropic-model.js');
const { priceOf } = await import('../dist/model/prices.js');
const { createAnthropicEmulator, reply } = await import('../dist/emulators/anthropic/index.js');

const TURNS = 30;
const MODEL = 'claude-sonnet-5-5';

// Turn i asks for one or two tool calls, alternating between reading files and running commands;
// the last turn ends the session.
const script = (_request, index) => {
  if (index >= TURNS - 1) return reply.text('Fixed the parser and added a test; npm test passes.');
  const calls =
    index % 3 === 0
      ? [{ name: 'str_replace_based_edit_tool', input: { command: 'view', path: `src/module-${index}.ts` } }]
      : [
          { name: 'bash', input: { command: `npm test -- parser-${index}` } },
          { name: 'bash', input: { command: `git diff --stat` } },
        ];
  return reply.toolUse(calls, `Step ${index + 1}: checking the next part.`);
};
const emulator = createAnthropicEmulator({ script });
const model = createAnthropicModel({
  apiKey: emulator.apiKey,
  baseURL: emulator.baseUrl,
  fetch: emulator.fetch,
});

// Tool output of realistic, varying size (a source file, a test run): 1.5–4 KB per call.
let outputs = 0;
const toolset = createToolset({ root: process.cwd(), env: {} });
const tools = {
  definitions: toolset.definitions,
  run: async (name, input) => {
    outputs += 1;
    const size = 1_500 + ((outputs * 977) % 2_500);
    const line = `${name} ${JSON.stringify(input)} line ${outputs}: ${'const value = compute(input);'.padEnd(60, ' ')}\n`;
    return { content: line.repeat(Math.ceil(size / line.length)).slice(0, size), isError: false };
  },
};

const { text: system } = await renderSystemPrompt({
  repo: 'acme/widgets',
  branch: 'issueloop/issue-42',
  verifyCommand: 'npm test',
  maxModelCallsPerTurn: TURNS + 5,
});
const perTurn = [];
const agent = createAgent({
  callModel: model.callModel,
  model: MODEL,
  system: async () => [system],
  tools,
  limits: { ...DEFAULT_LIMITS, maxModelCallsPerTurn: TURNS + 5 },
  contextWindow: 200_000,
  compactionThreshold: 0.8,
  maxOutputTokens: 8_000,
  clock: { now: () => Date.now() },
  observer: (event) => {
    if (event.type === 'model_call') perTurn.push(event.usage);
  },
});
const body = 'The parser drops the last token when a line ends with a comment.\n'.repeat(8);
const result = await agent.run(`Issue #42: Parser drops trailing tokens\n\n${body}`);
if (result.stop !== 'end_turn' || perTurn.length !== TURNS) {
  console.error(`bench/cache: the session did not run as scripted (${result.stop}, ${perTurn.length} calls)`);
  process.exit(1);
}

const sum = (pick) => perTurn.reduce((total, usage) => total + pick(usage), 0);
const input = sum((u) => u.input);
const written = sum((u) => u.cacheWrite);
const read = sum((u) => u.cacheRead);
const allInput = input + written + read;
const price = priceOf(MODEL);
const costWith = (input * price.input + written * price.input * 1.25 + read * price.input * 0.1) / 1e6;
const costWithout = (allInput * price.input) / 1e6;
const sent = perTurn.map((u) => u.input + u.cacheWrite + u.cacheRead);
const uncached = perTurn.map((u) => u.input + u.cacheWrite);
const avg = (values) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);

console.log(`bench/cache: ${TURNS}-turn session, ${result.totals.toolCalls} tool calls, model ${MODEL}`);
console.log(`  input tokens: ${allInput} (uncached ${input}, cache writes ${written}, cache reads ${read})`);
console.log(`  tokens sent per turn: first ${sent[0]}, last ${sent.at(-1)}, mean ${avg(sent)}`);
console.log(
  `  uncached tokens per turn (input + cache writes): mean ${avg(uncached)}, max ${Math.max(...uncached)}`,
);
console.log(`  share of input served from cache: ${((100 * read) / allInput).toFixed(1)} % (target >= 90 %)`);
console.log(
  `  input cost: $${costWith.toFixed(4)} with caching vs $${costWithout.toFixed(4)} without (ratio ${(costWith / costWithout).toFixed(2)})`,
);
