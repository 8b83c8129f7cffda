import { describe, expect, it } from 'vitest';
import { usageMeter } from '../../src/sandbox/model-usage.js';
import { DELTA, END, START, sse } from './sse-frames.js';

describe('usageMeter', () => {
  it('reads SSE usage whatever the chunking, one byte at a time included, and CRLF lines', () => {
    const text = (START + DELTA + END).replace(/\n/g, '\r\n');
    for (const size of [1, 7, 64, text.length]) {
      const meter = usageMeter('text/event-stream; charset=utf-8');
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += size) meter.chunk(bytes.subarray(i, i + size));
      expect(meter.end()).toEqual({
        model: 'claude-sonnet-5-5',
        usage: { input: 12, cacheWrite: 3000, cacheRead: 9000, output: 42 },
      });
    }
  });

  it('takes input figures a newer message_delta repeats, and ignores a usage-looking text delta', () => {
    const meter = usageMeter('text/event-stream');
    const sneaky = sse('content_block_delta', {
      delta: { type: 'text_delta', text: '"message_delta" usage output_tokens 999999' },
    });
    const later = sse('message_delta', { usage: { input_tokens: 20, output_tokens: 5 } });
    meter.chunk(Buffer.from(START + sneaky + later));
    expect(meter.end()?.usage).toEqual({ input: 20, cacheWrite: 3000, cacheRead: 9000, output: 5 });
  });

  it('reports nothing for a body that is not a Messages answer', () => {
    const json = usageMeter('application/json');
    json.chunk(Buffer.from('{"input_tokens": 12}'));
    expect(json.end()).toBeUndefined();
    const broken = usageMeter('application/json');
    broken.chunk(Buffer.from('{"model": "x", "usage": {'));
    expect(broken.end()).toBeUndefined();
    expect(usageMeter('text/event-stream').end()).toBeUndefined();
  });
});
