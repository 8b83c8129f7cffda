import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createFileOutcomeStore,
  createMemoryOutcomeBackend,
  createMemoryOutcomeStore,
} from '../../src/claims/file-outcome-store.js';
import { openOutcomeStore } from '../../src/claims/open-claim-store.js';
import { parseOutcomesFile } from '../../src/claims/outcome-file.js';
import { createOutcomeStore } from '../../src/claims/outcome-store.js';
import { CorruptStateError } from '../../src/core/errors.js';
import { describeOutcomeStoreContract, sessionEntry } from './outcome-store-contract.js';
import { createTempStateDirs } from './temp-state-dirs.js';

const temp = createTempStateDirs();
afterAll(temp.cleanup);

describeOutcomeStoreContract('memory', async () => {
  const backend = createMemoryOutcomeBackend();
  return { store: createOutcomeStore(backend), twin: createOutcomeStore(backend) };
});

describeOutcomeStoreContract('file', async () => {
  const file = join(await temp.make(), 'outcomes.json');
  return { store: createFileOutcomeStore({ file }), twin: createFileOutcomeStore({ file }) };
});

const meta = { title: 't', labels: [], claimedAt: '2026-11-02T09:59:00.000Z' };

describe('FileOutcomeStore', () => {
  it('opens outcomes.json in the state directory beside claims.json, and writes it as JSON', async () => {
    const stateDir = await temp.make();
    const opened = openOutcomeStore(
      { claims: { store: 'file', max_failures: 3 }, state_dir: stateDir },
      { cwd: '/' },
    );
    expect(opened.location).toBe(join(stateDir, 'outcomes.json'));
    await opened.store.recordSession(4, sessionEntry(), meta);
    const onDisk = JSON.parse(await readFile(join(stateDir, 'outcomes.json'), 'utf8'));
    expect(onDisk.version).toBe(1);
    expect(onDisk.issues['4'].sessions[0].usd).toBe(0.0421);
    expect(await readFile(join(stateDir, '.gitignore'), 'utf8')).toContain('*');
  });

  it('a corrupt file is an error naming the file and the fix, and is left untouched', async () => {
    const stateDir = await temp.make();
    const file = join(stateDir, 'outcomes.json');
    const store = createFileOutcomeStore({ file });
    await store.recordSession(4, sessionEntry(), meta);
    await writeFile(file, '{"version": 1, "issues": {"4": {"issue": 5}}}');
    const error = await store.recordSession(4, sessionEntry(), meta).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptStateError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(/move it aside/);
    await expect(store.list()).rejects.toThrow(/not an outcomes file/);
    expect(await readFile(file, 'utf8')).toBe('{"version": 1, "issues": {"4": {"issue": 5}}}');
  });

  it('an empty or non-JSON file is corrupt, with the reason', () => {
    expect(() => parseOutcomesFile('/s/outcomes.json', '  ')).toThrow(
      /\/s\/outcomes.json is unreadable: the file is empty/,
    );
    expect(() => parseOutcomesFile('/s/outcomes.json', '{')).toThrow(/invalid JSON/);
    expect(parseOutcomesFile('/s/outcomes.json', '{"version":1,"issues":{}}')).toEqual({
      version: 1,
      issues: {},
    });
  });

  it('a file from a newer issueloop asks for an upgrade', async () => {
    const file = join(await temp.make(), 'outcomes.json');
    const store = createFileOutcomeStore({ file });
    await store.recordSession(4, sessionEntry(), meta);
    await writeFile(file, '{"version": 2, "issues": {}}');
    await expect(store.get(4)).rejects.toThrow(/newer issueloop.*Upgrade/s);
  });

  it('keeps fields a newer issueloop added to a record', async () => {
    const store = createMemoryOutcomeStore({
      version: 1,
      issues: {
        4: {
          issue: 4,
          title: 't',
          labels: [],
          first_claimed_at: meta.claimedAt,
          sessions: [],
          touch: { commits: 0, change_requests: 0, threads: 0 },
          ...{ reviewers: ['x'] },
        },
      },
    });
    await store.recordSession(4, sessionEntry(), meta);
    expect(await store.get(4)).toMatchObject({ reviewers: ['x'], sessions: [sessionEntry()] });
  });
});
