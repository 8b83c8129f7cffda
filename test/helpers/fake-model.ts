import type {
  CallModel,
  ContentBlockParam,
  ModelRequest,
  ModelResponse,
  StopReason,
  TokenUsage,
} from '../../src/model/types.js';

export type Step =
  | ModelResponse
  | Error
  | ((request: ModelRequest, index: number) => ModelResponse | Error | Promise<ModelResponse | Error>);

let nextId = 0;

export function usage(input: number, output = 10, cacheRead = 0, cacheWrite = 0): TokenUsage {
  return { input, output, cacheRead, cacheWrite };
}

export function respond(
  content: ContentBlockParam[],
  stopReason: StopReason | null,
  options: { usage?: TokenUsage; costUsd?: number; model?: string } = {},
): ModelResponse {
  return {
    model: options.model ?? 'claude-test',
    content,
    stopReason,
    usage: options.usage ?? usage(100),
    costUsd: options.costUsd ?? 0.001,
  };
}

export function text(value: string, options?: Parameters<typeof respond>[2]): ModelResponse {
  return respond([{ type: 'text', text: value }], 'end_turn', options);
}

export function toolCalls(
  calls: Array<{ name: string; input: unknown }>,
  options?: Parameters<typeof respond>[2],
): ModelResponse {
  return respond(
    calls.map((call) => ({
      type: 'tool_use' as const,
      id: `toolu_${++nextId}`,
      name: call.name,
      input: call.input,
    })),
    'tool_use',
    options,
  );
}

/**
 * A model that answers from a script, with no HTTP: each request gets the next step (a response, an
 * error to throw, or a function of the request). Running past the script's end is a test failure.
 */
export function scriptedModel(steps: Step[]): { call: CallModel; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const call: CallModel = async (request, signal) => {
    signal?.throwIfAborted();
    const index = requests.length;
    requests.push(structuredClone({ ...request, messages: [...request.messages] }) as ModelRequest);
    const step = steps[index];
    if (step === undefined) throw new Error(`scripted model: no step for request ${index + 1}`);
    const result = typeof step === 'function' ? await step(request, index) : step;
    if (result instanceof Error) throw result;
    return { ...result, model: request.model };
  };
  return { call, requests };
}
