import { describe, expect, it } from 'vitest';
import { actionEnv } from '../../src/action/action-setup.js';
import type { ActionInputs } from '../../src/action/inputs.js';
import { secretsFromEnv } from '../../src/run/secrets.js';

const inputs: ActionInputs = {
  githubToken: 'ghs_input_token_0123456789',
  projectsToken: '',
  anthropicKey: 'sk-ant-input-0123456789',
  mode: 'issue',
  flags: {},
  timeBudgetMs: 60_000,
  allowedBots: [],
};

describe('the Action passes OTEL_* through', () => {
  it("the run gets the job's OTEL_* variables (the INPUT_* copies are dropped), and the headers are among its secrets", () => {
    const runner = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector-key-5e6f7a8b',
      OTEL_SERVICE_NAME: 'issueloop-ci',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
      'INPUT_GITHUB-TOKEN': 'ghs_input_token_0123456789',
    };
    const env = actionEnv(runner, inputs);
    expect(env).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector-key-5e6f7a8b',
      OTEL_SERVICE_NAME: 'issueloop-ci',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
      GITHUB_TOKEN: 'ghs_input_token_0123456789',
    });
    expect(env['INPUT_GITHUB-TOKEN']).toBeUndefined();
    expect(secretsFromEnv(env)).toContain('collector-key-5e6f7a8b');
  });
});
