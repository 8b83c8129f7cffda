import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { reply, type ScriptedReply } from '../../src/emulators/anthropic/index.js';
import { readLedger } from '../../src/session/ledger.js';
import { useIssueWorld } from '../helpers/world.js';

/**
 * Item 5 of issue 29: a change to a protected path is never delivered. Each case is a scripted agent
 * working through the real tools in the sandbox, on a real repository with a workflow of its own, and
 * the GitHub emulator; what origin holds afterwards is the evidence.
 */
const world = useIssueWorld(
  {
    'greet.js': "export const greet = () => 'helo';\n",
    '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
  },
  { verify: { command: 'true' } },
);
const { repo } = world;

const bash = (command: string) => reply.toolUse([{ name: 'bash', input: { command } }]);

function session(replies: ScriptedReply[], config: Partial<Config> = {}) {
  return world.session({ script: [...replies, reply.text('Done.')], config });
}

/** origin has no branch for the issue, and no pull request was opened. */
function expectNothingDelivered(number: number) {
  const refs = repo.fx.git(repo.fx.origin, 'for-each-ref', '--format=%(refname)');
  expect(refs.split('\n')).toEqual(['refs/heads/main']);
  expect(world.gh.emulator.pulls()).toEqual([]);
  expect(number).toBeGreaterThan(0);
}

describe('protected paths (a first attempt)', () => {
  it('a new workflow file (.github/workflows/exfil.yml) ends the session refused, naming it, needing a human; nothing is pushed', async () => {
    const { report, number, ledger } = await session([
      bash("sed -i s/helo/hello/ greet.js && printf 'on: push\\njobs: {}\\n' > .github/workflows/exfil.yml"),
    ]);
    expect(report.outcome).toBe('refused');
    expect(report.needsHuman).toBe(true);
    expect(report.reason).toContain('".github/workflows/exfil.yml"');
    expect(report.reason).toContain('nothing was committed or pushed');
    expectNothingDelivered(number);
    const { events } = await readLedger(ledger.file);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'protected_paths', count: 1, paths: ['.github/workflows/exfil.yml'] }),
    );
  });

  it('a rename into .github/workflows/ counts, and so does a rename out of it (both ends are named)', async () => {
    const into = await session([
      bash('mkdir -p .github/workflows && git mv greet.js .github/workflows/greet.yml'),
    ]);
    expect(into.report.outcome).toBe('refused');
    expect(into.report.reason).toContain('".github/workflows/greet.yml"');
    expectNothingDelivered(into.number);

    const out = await session([bash('mv .github/workflows/ci.yml ci.yml.bak')]);
    expect(out.report.outcome).toBe('refused');
    expect(out.report.reason).toContain('".github/workflows/ci.yml"');
  });

  it('.github replaced by a symlink, a symlink into .github, another case, and a name with line breaks all count', async () => {
    const cases: Array<[string, string]> = [
      ['rm -rf .github && mkdir elsewhere && ln -s elsewhere .github', '".github"'],
      ['ln -s .github/workflows/ci.yml ci-link.yml', '"ci-link.yml"'],
      ['mkdir -p .GitHub/Workflows && echo x > .GitHub/Workflows/x.yml', '".GitHub/Workflows/x.yml"'],
      [
        'touch "$(printf \'.github/workflows/a\\n\\n@team b.yml\')"',
        '".github/workflows/a\\u000a\\u000a@team b.yml"',
      ],
    ];
    for (const [command, named] of cases) {
      const { report, number } = await session([bash(command)]);
      expect({ command, outcome: report.outcome }).toEqual({ command, outcome: 'refused' });
      expect(report.reason).toContain(named);
      expect(report.reason).not.toContain('\n');
      expectNothingDelivered(number);
    }
  });

  it("protected_paths: ['infra/**'] refuses infra/x (and no longer protects workflows)", async () => {
    const infra = await session(
      [bash('mkdir infra && echo x > infra/x && echo y > .github/workflows/y.yml')],
      {
        protected_paths: ['infra/**'],
      },
    );
    expect(infra.report.outcome).toBe('refused');
    expect(infra.report.reason).toContain('protected paths changed: "infra/x";');
  });

  it("protected_paths: ['...', 'infra/**'] keeps the defaults and adds infra", async () => {
    const { report } = await session([bash('echo x > .github/workflows/x.yml')], {
      protected_paths: ['...', 'infra/**'],
    });
    expect(report.outcome).toBe('refused');
  });

  it('protected_paths: [] delivers a workflow change', async () => {
    const { report, number } = await session([bash('echo "# more" >> .github/workflows/ci.yml')], {
      protected_paths: [],
    });
    expect(report.outcome).toBe('resolved');
    expect(report.needsHuman).toBeUndefined();
    const branch = `issueloop/issue-${number}`;
    expect(repo.fx.git(repo.fx.origin, 'show', `${branch}:.github/workflows/ci.yml`)).toContain('# more');
  });

  it('a change elsewhere is delivered as before', async () => {
    const { report } = await session([
      bash('sed -i s/helo/hello/ greet.js && mkdir -p docs && echo x > docs/x.md'),
    ]);
    expect(report.outcome).toBe('resolved');
  });
});
