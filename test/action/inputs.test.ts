import { describe, expect, it } from 'vitest';
import { botName, CONFIG_INPUTS, readInputs, readTokens } from '../../src/action/inputs.js';
import { UsageError } from '../../src/core/errors.js';

/** `core.getInput` as the runner sees it: an input that is not set reads as ''. */
function inputs(given: Record<string, string>) {
  return (name: string) => given[name] ?? '';
}

function usageError(given: Record<string, string>): UsageError {
  try {
    readInputs(inputs(given));
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`readInputs accepted ${JSON.stringify(given)}`);
}

describe('readInputs', () => {
  it('defaults to mode auto, a 5h time budget and no flags', () => {
    const read = readInputs(inputs({}));
    expect(read.mode).toBe('auto');
    expect(read.timeBudgetMs).toBe(18_000_000);
    expect(read.flags).toEqual({});
    expect(read.allowedBots).toEqual([]);
    expect(read).not.toHaveProperty('configPath');
    expect(read).toMatchObject({ githubToken: '', projectsToken: '', anthropicKey: '' });
  });

  it('reads the tokens, the config path and an explicit mode', () => {
    const read = readInputs(
      inputs({
        github_token: 'ghs_a',
        projects_token: 'ghp_b',
        anthropic_api_key: 'sk-ant-c',
        config: '.github/issueloop.yaml',
        mode: 'drain',
        time_budget: '50m',
      }),
    );
    expect(read).toMatchObject({
      githubToken: 'ghs_a',
      projectsToken: 'ghp_b',
      anthropicKey: 'sk-ant-c',
      configPath: '.github/issueloop.yaml',
      mode: 'drain',
      timeBudgetMs: 3_000_000,
    });
  });

  it.each(['auto', 'issue', 'drain'] as const)('accepts mode %s', (mode) => {
    expect(readInputs(inputs({ mode })).mode).toBe(mode);
  });

  it('turns each config input into a flag at its config path, sourced as the input', () => {
    const read = readInputs(
      inputs({
        label: 'agent-ready',
        workers: '2',
        model: 'claude-sonnet-5-5',
        fallback_models: 'a, b',
        verify_command: 'npm test -- --run',
        setup_command: 'npm ci',
        max_usd_per_issue: '1.5',
        max_usd: '20',
        empty_rounds: '4',
      }),
    );
    expect(read.flags).toEqual({
      label: { value: 'agent-ready', flag: 'input label' },
      workers: { value: 2, flag: 'input workers' },
      'model.primary': { value: 'claude-sonnet-5-5', flag: 'input model' },
      'model.fallbacks': { value: ['a', 'b'], flag: 'input fallback_models' },
      'verify.command': { value: 'npm test -- --run', flag: 'input verify_command' },
      'session.setup': { value: 'npm ci', flag: 'input setup_command' },
      'session.max_usd': { value: 1.5, flag: 'input max_usd_per_issue' },
      run_max_usd: { value: 20, flag: 'input max_usd' },
      empty_rounds: { value: 4, flag: 'input empty_rounds' },
    });
  });

  it('covers every config input in the flags test above', () => {
    expect(Object.keys(CONFIG_INPUTS).sort()).toEqual(
      [
        'label',
        'workers',
        'model',
        'fallback_models',
        'verify_command',
        'setup_command',
        'max_usd_per_issue',
        'max_usd',
        'empty_rounds',
      ].sort(),
    );
  });

  it('sets only the flags whose input is given', () => {
    const read = readInputs(inputs({ workers: '3' }));
    expect(read.flags).toEqual({ workers: { value: 3, flag: 'input workers' } });
  });

  it('keeps a verify command that looks like a number or a list as text', () => {
    expect(readInputs(inputs({ verify_command: '42' })).flags['verify.command']?.value).toBe('42');
    expect(readInputs(inputs({ verify_command: 'make a, b' })).flags['verify.command']?.value).toBe(
      'make a, b',
    );
  });

  it('leaves a non-numeric workers value as text for the config schema to reject', () => {
    expect(readInputs(inputs({ workers: 'many' })).flags.workers?.value).toBe('many');
  });

  it('rejects an unknown mode with a UsageError naming input mode', () => {
    const error = usageError({ mode: 'everything' });
    expect(error.message).toContain('input mode');
    expect(error.message).toContain('"everything"');
  });

  it.each(['soon', '30s', '59s', '0m'])('rejects time_budget %j naming input time_budget', (text) => {
    const error = usageError({ time_budget: text });
    expect(error.message).toContain('input time_budget');
    expect(error.message).toContain(JSON.stringify(text));
  });

  it('newcomer: a time_budget past what a timer can hold is refused naming the input', () => {
    const error = usageError({ time_budget: '25d' });
    expect(error.message).toContain('input time_budget: expected a duration between 1m and 24d');
    expect(error.message).toContain('"25d"');
    expect(readInputs(inputs({ time_budget: '24d' })).timeBudgetMs).toBe(24 * 86_400_000);
  });

  it('accepts a time budget of exactly one minute and compound durations', () => {
    expect(readInputs(inputs({ time_budget: '1m' })).timeBudgetMs).toBe(60_000);
    expect(readInputs(inputs({ time_budget: '1h30m' })).timeBudgetMs).toBe(5_400_000);
  });

  it('reads allowed_bots in lower case without the [bot] suffix', () => {
    expect(readInputs(inputs({ allowed_bots: 'Renovate[bot], dependabot' })).allowedBots).toEqual([
      'renovate',
      'dependabot',
    ]);
    expect(readInputs(inputs({ allowed_bots: ' a[bot]\n\nB ,, ' })).allowedBots).toEqual(['a', 'b']);
  });
});

describe('botName', () => {
  it('lower-cases a login and strips a trailing [bot] only', () => {
    expect(botName('Dependabot[bot]')).toBe('dependabot');
    expect(botName('octocat')).toBe('octocat');
    expect(botName('[bot]helper')).toBe('[bot]helper');
  });
});

describe('readTokens', () => {
  it('returns the non-empty token inputs in order github, projects, anthropic', () => {
    const given = { anthropic_api_key: 'sk-ant-3', github_token: 'ghs_1', projects_token: 'ghp_2' };
    expect(readTokens(inputs(given))).toEqual(['ghs_1', 'ghp_2', 'sk-ant-3']);
  });

  it("regression: the App's PEM key is masked line by line too, so a key printed in pieces shows none of them", () => {
    const body = ['MIIEowIBAAKCAQEAx1y2z3w4v5u6t7s8r9q0', 'p1o2n3m4l5k6j7i8h9g0f1e2d3c4b5a6Z7Y8'];
    const pem = ['-----BEGIN RSA PRIVATE KEY-----', ...body, '-----END RSA PRIVATE KEY-----', ''].join('\n');
    const tokens = readTokens((name) => (name === 'app_private_key' ? pem : ''));
    expect(tokens).toEqual([pem, ...body]);
  });

  it('leaves out empty token inputs and reads nothing else', () => {
    const asked: string[] = [];
    const given: Record<string, string> = {
      github_token: 'ghs_1',
      anthropic_api_key: 'sk-ant-3',
      mode: 'drain',
    };
    const tokens = readTokens((name) => {
      asked.push(name);
      return given[name] ?? '';
    });
    expect(tokens).toEqual(['ghs_1', 'sk-ant-3']);
    expect(asked).toEqual(['github_token', 'projects_token', 'anthropic_api_key', 'app_private_key']);
  });

  it('returns nothing when no token is set', () => {
    expect(readTokens(inputs({}))).toEqual([]);
  });
});
