import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AnthropicEmulator,
  createAnthropicEmulator,
  type ModelSpec,
  type ParsedMessagesRequest,
  reply,
  type Script,
} from '../../src/emulators/anthropic/index.js';
import type { ListeningEmulator } from '../../src/emulators/github/index.js';
import { FAKE_CLAUDE, fakeClaude, resultJson } from '../engines/claude-code/fake-claude.js';
import { runBuiltCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/cli-in-process.js';
import { createGitFixture, type GitFixture } from '../session/git/git-fixture.js';

const TASKS = `<!-- boot: notes/boot.md -->
# Plan

## Greeting
- Fix the typo in greet.js: it says helo
- Add farewell.js exporting a function that returns 'bye'

## Docs
- Write docs.md describing greet()
`;

const BOOT = 'BOOT-MARKER: this project greets people.';

let fx: GitFixture;
const servers: ListeningEmulator[] = [];

beforeEach(async () => {
  fx = await createGitFixture();
  fx.commitFiles(fx.seed, { 'greet.js': "module.exports = () => 'helo';\n" }, 'project files');
  fx.git(fx.seed, 'push', '--quiet', 'origin', 'main');
  fx.git(fx.checkout, 'pull', '--quiet');
  writeFileSync(join(fx.root, 'tasks.md'), TASKS);
  // The boot directive is relative to the task file's directory.
  mkdirSync(join(fx.root, 'notes'));
  writeFileSync(join(fx.root, 'notes', 'boot.md'), BOOT);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await fx.cleanup();
});

const text = (message: ParsedMessagesRequest['messages'][number] | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? String(block.text) : '')).join('\n');

const edit = (path: string, from: string, to: string) =>
  reply.toolUse([
    {
      name: 'str_replace_based_edit_tool',
      input: { command: 'str_replace', path, old_str: from, new_str: to },
    },
  ]);
const create = (path: string, body: string) =>
  reply.toolUse([
    { name: 'str_replace_based_edit_tool', input: { command: 'create', path, file_text: body } },
  ]);

/** A scripted model that does each task by its text: the edit first, then a closing message. */
function taskScript(requests: ParsedMessagesRequest[], options: { bigFirstTask?: boolean } = {}): Script {
  return (request) => {
    requests.push(request);
    const last = request.messages.at(-1);
    const lastText = text(last);
    const toolResultLast = last?.content.some((block) => block.type === 'tool_result') ?? false;
    if (lastText.includes('Summarize the work completed so far'))
      return reply.text('SUMMARY: greet.js fixed.');
    if (toolResultLast) {
      // The first task's closing answer, made large: the conversation passes the threshold.
      const big = options.bigFirstTask && text(request.messages[0]).startsWith('Task 1 ');
      return big
        ? { content: [{ type: 'text', text: 'Done.' }], stopReason: 'end_turn', outputTokens: 9_000 }
        : reply.text('Done.');
    }
    if (lastText.includes('typo in greet.js')) return edit('greet.js', "'helo'", "'hello'");
    if (lastText.includes('farewell.js')) return create('farewell.js', "module.exports = () => 'bye';\n");
    if (lastText.includes('docs.md')) return create('docs.md', '# greet\nSays hello.\n');
    return reply.text('I do not know this task.');
  };
}

async function start(
  script: Script,
  models?: Record<string, ModelSpec>,
): Promise<{ anthropic: AnthropicEmulator; env: Record<string, string> }> {
  const anthropic = createAnthropicEmulator({ script, ...(models ? { models } : {}) });
  const listening = await anthropic.listen();
  servers.push(listening);
  // No GitHub at all: no token, no API URL.
  return {
    anthropic,
    env: { ...fx.env, ANTHROPIC_API_KEY: anthropic.apiKey, ANTHROPIC_BASE_URL: listening.url },
  };
}

/** The command's logic, in this process; `spawned` is the built binary, for the smoke test. */
const cli = (args: string[], env: Record<string, string>) =>
  runInProcess(args, { cwd: fx.root, env: { ISSUELOOP_LOG_LEVEL: 'warn', ...env } });
const spawned = (args: string[], env: Record<string, string>) =>
  runBuiltCli(args, { cwd: fx.root, env: { ISSUELOOP_LOG_LEVEL: 'warn', ...env } });

describe('issueloop run --tasks: a local task file through the same scheduler, no GitHub', () => {
  // The built binary's run: three sessions and four rounds, past the default 20 s on a loaded machine.
  it('runs every task in file order, each committed on the file branch; a group continues one conversation', {
    timeout: 60_000,
  }, async () => {
    const requests: ParsedMessagesRequest[] = [];
    const { env } = await start(taskScript(requests));
    // Validated like an issue: tasks 2 and 3 pass only because they build on task 1's commit.
    writeFileSync(
      join(fx.checkout, 'issueloop.config.yaml'),
      'verify:\n  command: grep -q "\'hello\'" greet.js\n',
    );

    const dry = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--dry-run'], env);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('next: task 1. Fix the typo in greet.js');
    expect(dry.stdout).toMatch(/\[\.\.\.\] 3\. Write docs\.md/);
    expect(dry.stdout).toContain(join(fx.root, 'notes', 'boot.md'));
    expect(requests).toHaveLength(0);

    const run = await spawned(['run', '--tasks', 'tasks.md', '--dir', 'checkout'], {
      ...env,
      ISSUELOOP_LOG_LEVEL: 'info',
    });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    // Progress lines name tasks, not their claim keys.
    expect(run.stderr).toContain('task 2 verifying');
    expect(run.stderr).not.toMatch(/#\d{6,}/);
    // regression: log lines name the task by its number, not by its 48-bit claim key ("issue":40247218115842).
    expect(run.stderr).not.toMatch(/"issue":\d{6,}/);
    expect(run.stderr).toMatch(/"task":2/);
    expect(run.stdout).toContain('issueloop run: no task left to run after 4 round(s)');
    expect(run.stdout).toMatch(/task 1 +resolved/);
    expect(run.stdout).toMatch(/task 3 +resolved/);
    expect(run.stdout).toContain('branch: issueloop/tasks/tasks');

    // Three commits on the task branch, in file order, each naming its task; main untouched.
    const log = fx.git(fx.checkout, 'log', '--format=%s', 'main..issueloop/tasks/tasks').split('\n');
    expect(log).toEqual([
      'Write docs.md describing greet()',
      "Add farewell.js exporting a function that returns 'bye'",
      'Fix the typo in greet.js: it says helo',
    ]);
    expect(fx.git(fx.checkout, 'show', 'issueloop/tasks/tasks:greet.js')).toContain("'hello'");
    expect(fx.git(fx.checkout, 'show', 'issueloop/tasks/tasks:farewell.js')).toContain("'bye'");
    expect(fx.git(fx.checkout, 'show', 'issueloop/tasks/tasks:docs.md')).toContain('Says hello.');
    expect(fx.git(fx.checkout, 'log', '-1', '--format=%B', 'issueloop/tasks/tasks')).toMatch(
      /Task-Id: [0-9a-f]{12}/,
    );
    expect(fx.git(fx.checkout, 'rev-parse', 'main')).toBe(fx.git(fx.seed, 'rev-parse', 'main'));
    // Nothing was pushed: origin has main only.
    expect(fx.git(fx.origin, 'branch', '--list')).not.toContain('issueloop/tasks');

    // Task 1 starts the group; task 2 continues the same conversation; task 3 (another group) starts fresh.
    const firstOf = (needle: string) => requests.find((r) => text(r.messages.at(-1)).includes(needle));
    const task2 = firstOf('NEXT TASK: Add farewell.js');
    expect(text(requests[0]?.messages[0])).toMatch(/^Task 1 \(Greeting\): Fix the typo/);
    expect(task2).toBeDefined();
    expect(text(task2?.messages[0])).toMatch(/^Task 1 \(Greeting\): Fix the typo/);
    const task3 = firstOf('Task 3 (Docs): Write docs.md');
    expect(task3?.messages).toHaveLength(1);
    // The task file's boot directive is the project context; the system prompt speaks of a task.
    const system = (requests[0]?.system ?? []).map((b) => String(b.text)).join('\n');
    expect(system).toContain(BOOT);
    expect(system).toContain('task of a plan');

    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as {
      counts: Record<string, number>;
      tasks: Array<{ attempts: number }>;
    };
    expect(report.counts).toMatchObject({ completed: 3, pending: 0, failed: 0 });
    expect(report.tasks.map((t) => t.attempts)).toEqual([1, 1, 1]);

    // A second run finds nothing left and makes no model call.
    const before = requests.length;
    const again = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(again.code).toBe(0);
    expect(requests.length).toBe(before);
  });

  it('past the compaction threshold the next task of the group starts fresh with the summary (seed 000 feature 5)', async () => {
    const requests: ParsedMessagesRequest[] = [];
    // A 10,000-token window: the first task's large answer takes the conversation past 80 %.
    const small = { maxInputTokens: 10_000, maxTokens: 64_000 };
    const { env } = await start(taskScript(requests, { bigFirstTask: true }), {
      'claude-sonnet-5-5': small,
      'claude-haiku-5-5': small,
    });
    const run = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--max-rounds', '2'], env);
    expect(run.code).toBe(0);
    const task2 = requests.find((r) => text(r.messages.at(-1)).includes('NEXT TASK: Add farewell.js'));
    expect(task2?.messages).toHaveLength(1);
    expect(text(task2?.messages[0])).toBe(
      "CONTEXT FROM PREVIOUS SESSION:\nSUMMARY: greet.js fixed.\n\nNEXT TASK: Add farewell.js exporting a function that returns 'bye'",
    );
  });

  it('a malformed task file is a usage error naming each bad line (exit 2), before anything runs', async () => {
    writeFileSync(join(fx.root, 'bad.md'), '- orphan task\n## Group\nsome prose\n');
    const result = await cli(['run', '--tasks', 'bad.md', '--dir', 'checkout'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.md:1: a task before any "## " group heading');
    expect(result.stderr).toContain('bad.md:3: expected "## Group" or "- task"');
    const missing = await cli(['run', '--tasks', 'nope.md', '--dir', 'checkout'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--tasks nope.md: no such file');
    expect(existsSync(join(fx.checkout, '.issueloop'))).toBe(false);
    expect(readFileSync(join(fx.root, 'tasks.md'), 'utf8')).toBe(TASKS);
  });

  it('an interrupted task shows as INT with its partial context; the next run resumes it fresh, with that context', async () => {
    // The interrupt a SIGINT raises (main.ts), raised once the session waits on the model.
    const interrupt = new AbortController();
    const { env } = await start((request) => {
      if (request.messages.length === 1) {
        return reply.toolUse([
          { name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'greet.js' } },
        ]);
      }
      interrupt.abort(new Error('interrupted by SIGINT'));
      return { hang: true };
    });
    const interrupted = await runInProcess(['run', '--tasks', 'tasks.md', '--dir', 'checkout'], {
      cwd: fx.root,
      env: { ...env, ISSUELOOP_LOG_LEVEL: 'warn' },
      io: { interrupt: interrupt.signal },
    });
    expect(interrupt.signal.aborted).toBe(true);
    expect(interrupted.code).toBe(130);

    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /\[INT\] 1\. Fix the typo in greet\.js: it says helo {2}\(1 attempt\(s\), interrupted at \d{4}-/,
    );
    expect(status.stdout).toMatch(/partial context: .*greet\.js/);
    expect(status.stdout).toMatch(/\[\.\.\.\] 2\. Add farewell\.js/);

    const requests: ParsedMessagesRequest[] = [];
    const next = await start(taskScript(requests));
    const run = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--max-rounds', '1'], next.env);
    expect(run.code).toBe(0);
    // Seed 000 feature 6: a fresh conversation, told what the interrupted attempt was doing.
    expect(requests[0]?.messages).toHaveLength(1);
    expect(text(requests[0]?.messages[0])).toMatch(
      /^Task 1 \(Greeting\): Fix the typo[\s\S]*\n\nCONTEXT FROM INTERRUPTED ATTEMPT: [\s\S]*greet\.js/,
    );
    const after = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], next.env);
    const task1 = (
      JSON.parse(after.stdout) as {
        tasks: Array<{ status: string; attempts: number; interrupted_at: unknown }>;
      }
    ).tasks[0];
    expect(task1).toMatchObject({ status: 'completed', attempts: 2, interrupted_at: null });
  });

  it('a task that keeps failing goes to a human after max_failures and the next task runs; reset --tasks starts over', async () => {
    const requests: ParsedMessagesRequest[] = [];
    const script = taskScript(requests);
    // The first task is never done: the model answers without changing anything.
    const { env } = await start((request, index) => {
      if (!text(request.messages[0]).includes('typo in greet.js')) return script(request, index);
      requests.push(request);
      return reply.text('Cannot.');
    });
    writeFileSync(join(fx.checkout, 'issueloop.config.yaml'), 'claims:\n  max_failures: 2\n');
    const run = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as {
      reports: Array<{ outcome: string; task: { index: number } }>;
    };
    expect(summary.reports.map((r) => [r.task.index, r.outcome])).toEqual([
      [1, 'no_changes'],
      [1, 'no_changes'],
      [2, 'resolved'],
      [3, 'resolved'],
    ]);
    // Task 2 does not continue a conversation the failed task 1 left.
    const task2 = requests.find((r) => text(r.messages[0]).includes('farewell.js'));
    expect(text(task2?.messages[0])).toMatch(/^Task 2 \(Greeting\): Add farewell\.js/);

    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(status.stdout).toMatch(/\[HUMAN\] 1\. Fix the typo .*\(2 attempt\(s\), 2 failure\(s\)\)/);
    expect(status.stdout).toContain('last failure: no_changes: the agent finished without changing any file');

    const reset = await cli(['reset', '--tasks', 'tasks.md', '--dir', 'checkout', '--yes'], env);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('branch issueloop/tasks/tasks kept');
    const fresh = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect((JSON.parse(fresh.stdout) as { counts: Record<string, number> }).counts).toMatchObject({
      pending: 3,
    });
    expect(fx.git(fx.checkout, 'rev-parse', '--verify', 'issueloop/tasks/tasks')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('a group can run on Claude Code: its tasks resume one Claude Code session; another group stays native', async () => {
    const tasks = TASKS.replace('## Greeting\n', '## Greeting\n<!-- engine: claude-code -->\n');
    writeFileSync(join(fx.root, 'tasks.md'), tasks);
    const session = '9b2f7c1e-0000-4000-8000-00000000c0de';
    const fake = await fakeClaude([
      {
        stdout: resultJson({ session_id: session, result: 'Fixed greet.js.' }),
        write: { file: 'greet.js', content: "module.exports = () => 'hello';\n" },
      },
      {
        stdout: resultJson({ session_id: session, result: 'Added farewell.js.' }),
        write: { file: 'farewell.js', content: "module.exports = () => 'bye';\n" },
      },
    ]);
    writeFileSync(
      join(fx.checkout, 'issueloop.config.yaml'),
      `claude_code:\n  bin: ${JSON.stringify(FAKE_CLAUDE)}\n  fallback: none\n`,
    );
    const requests: ParsedMessagesRequest[] = [];
    const { env } = await start(taskScript(requests));
    const run = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout'], { ...env, ...fake.env });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);

    const calls = await fake.calls();
    expect(calls).toHaveLength(2);
    expect(calls[0]?.args).not.toContain('--resume');
    expect(calls[0]?.prompt).toMatch(/^Task 1 \(Greeting\): Fix the typo/);
    // The task file's boot file reaches Claude Code's system prompt too.
    const boot = calls[0]?.args.indexOf('--append-system-prompt') ?? -1;
    expect(calls[0]?.args[boot + 1]).toContain(BOOT);
    expect(calls[1]?.args.join(' ')).toContain(`--resume ${session}`);
    expect(calls[1]?.prompt).toBe("NEXT TASK: Add farewell.js exporting a function that returns 'bye'");
    // Headless Claude Code logs in with the model credential (issue 20); it never sees a GitHub token.
    expect(calls[0]?.env).toContain('ANTHROPIC_API_KEY');
    expect(calls[0]?.env).not.toContain('GITHUB_TOKEN');
    // The Docs group ran on the native engine, fresh.
    expect(requests).not.toHaveLength(0);
    expect(text(requests[0]?.messages[0])).toMatch(/^Task 3 \(Docs\): Write docs\.md/);

    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], {
      ...env,
      ...fake.env,
    });
    const report = JSON.parse(status.stdout) as {
      tasks: Array<{ engine: string; session_id: string | null; status: string }>;
    };
    expect(report.tasks.map((t) => [t.engine, t.session_id, t.status])).toEqual([
      ['claude-code', session, 'completed'],
      ['claude-code', session, 'completed'],
      ['native', null, 'completed'],
    ]);
  });

  it('regression: setup problems are one usage error (exit 2), never every task failing: a checked-out task branch, a checkout without commits', async () => {
    const { env } = await start(taskScript([]));
    fx.git(fx.checkout, 'switch', '--quiet', '-c', 'issueloop/tasks/tasks');
    const busy = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain('issueloop/tasks/tasks is checked out at');
    expect(busy.stderr).toContain('git switch -');
    fx.git(fx.checkout, 'switch', '--quiet', 'main');
    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect((JSON.parse(status.stdout) as { counts: Record<string, number> }).counts).toMatchObject({
      pending: 3,
    });

    fx.git(fx.root, 'init', '--quiet', 'empty');
    const empty = await cli(['run', '--tasks', 'tasks.md', '--dir', 'empty'], env);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('has no commit yet');
  });

  it('regression: the harness commits, not the agent: an agent commit is judged as changes, and a failed attempt leaves the branch where it was', async () => {
    writeFileSync(join(fx.root, 'tasks.md'), '## Greeting\n- Fix the typo in greet.js: it says helo\n');
    writeFileSync(
      join(fx.checkout, 'issueloop.config.yaml'),
      'verify:\n  command: grep -q "\'hello\'" greet.js\n  retries: 0\nclaims:\n  max_failures: 1\n',
    );
    const commitAs = (replacement: string) =>
      reply.toolUse([
        {
          name: 'bash',
          input: {
            command: `sed -i "s/'helo'/'${replacement}'/" greet.js && git add -A && git -c user.name=agent -c user.email=agent@example.test commit -qm 'agent wip'`,
          },
        },
      ]);
    // First a broken commit by the agent: verify fails, and the branch does not keep it.
    let broken = true;
    const { env } = await start((request) => {
      if (request.messages.length > 1) return reply.text('Done.');
      return commitAs(broken ? 'bye' : 'hello');
    });
    const failed = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect(failed.code).toBe(0);
    expect((JSON.parse(failed.stdout) as { reports: Array<{ outcome: string }> }).reports[0]?.outcome).toBe(
      'verify_failed',
    );
    expect(fx.git(fx.checkout, 'log', '--format=%s', 'main..issueloop/tasks/tasks')).toBe('');

    // Then a good one: one commit, by the harness, with the task as its subject.
    broken = false;
    await cli(['reset', '--tasks', 'tasks.md', '--dir', 'checkout', '--yes'], env);
    const resolved = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect((JSON.parse(resolved.stdout) as { reports: Array<{ outcome: string }> }).reports[0]?.outcome).toBe(
      'resolved',
    );
    expect(fx.git(fx.checkout, 'log', '--format=%s|%an', 'main..issueloop/tasks/tasks')).toBe(
      'Fix the typo in greet.js: it says helo|issueloop',
    );
    expect(fx.git(fx.checkout, 'show', 'issueloop/tasks/tasks:greet.js')).toContain("'hello'");
  });

  it('regression: a corrupt task claims file names reset --tasks, which works even when the task file does not parse', async () => {
    const { env } = await start(taskScript([]));
    const first = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout', '--max-rounds', '1'], env);
    expect(first.code).toBe(0);
    const [stateDir] = readdirSync(join(fx.checkout, '.issueloop', 'tasks'));
    const claimsFile = join(fx.checkout, '.issueloop', 'tasks', String(stateDir), 'claims.json');
    writeFileSync(claimsFile, '{"version": 1, "issues": ');
    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('issueloop reset --tasks tasks.md');
    expect(status.stderr).not.toContain('reset --claims');
    expect(readFileSync(claimsFile, 'utf8')).toBe('{"version": 1, "issues": ');

    writeFileSync(join(fx.root, 'tasks.md'), 'not a task file\n');
    const reset = await cli(['reset', '--tasks', 'tasks.md', '--dir', 'checkout', '--yes'], env);
    expect(reset.code).toBe(0);
    expect(existsSync(claimsFile)).toBe(false);
  });

  it('regression: a task file edited into bad syntax during a run stops it with exit 2 and the bad line', async () => {
    const requests: ParsedMessagesRequest[] = [];
    const script = taskScript(requests);
    const { env } = await start((request, index) => {
      writeFileSync(join(fx.root, 'tasks.md'), `${TASKS}\nstray prose\n`);
      return script(request, index);
    });
    const run = await cli(['run', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('tasks.md:11: expected "## Group" or "- task", got "stray prose"');
    // The task that was running finished and was recorded.
    const status = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout'], env);
    expect(status.code).toBe(2);
    writeFileSync(join(fx.root, 'tasks.md'), TASKS);
    const after = await cli(['status', '--tasks', 'tasks.md', '--dir', 'checkout', '--json'], env);
    expect((JSON.parse(after.stdout) as { counts: Record<string, number> }).counts).toMatchObject({
      completed: 1,
    });
  });
});
