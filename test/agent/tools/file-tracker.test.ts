import { describe, expect, it } from 'vitest';
import { createFileTracker } from '../../../src/agent/tools/file-tracker.js';

describe('createFileTracker', () => {
  it('starts empty', () => {
    expect(createFileTracker().snapshot()).toEqual({ read: [], created: [], modified: [] });
  });

  it('keeps a path created and then modified in created only', () => {
    const tracker = createFileTracker();
    tracker.record('created', 'src/new.ts');
    tracker.record('modified', 'src/new.ts');
    tracker.record('modified', 'src/new.ts');
    expect(tracker.snapshot()).toEqual({ read: [], created: ['src/new.ts'], modified: [] });
  });

  it('keeps a path modified and then re-created in modified only', () => {
    const tracker = createFileTracker();
    tracker.record('modified', 'a.ts');
    tracker.record('created', 'a.ts');
    expect(tracker.snapshot()).toEqual({ read: [], created: [], modified: ['a.ts'] });
  });

  it('tracks reads separately from writes', () => {
    const tracker = createFileTracker();
    tracker.record('read', 'a.ts');
    tracker.record('modified', 'a.ts');
    tracker.record('read', 'b.ts');
    expect(tracker.snapshot()).toEqual({ read: ['a.ts', 'b.ts'], created: [], modified: ['a.ts'] });
  });

  it('sorts, de-duplicates and uses / separators', () => {
    const tracker = createFileTracker();
    for (const path of ['z.ts', 'src\\b.ts', './src/b.ts', 'src//a.ts', 'z.ts']) tracker.record('read', path);
    expect(tracker.snapshot().read).toEqual(['src/a.ts', 'src/b.ts', 'z.ts']);
  });

  it('hands out copies: a snapshot does not change with later records', () => {
    const tracker = createFileTracker();
    tracker.record('created', 'a.ts');
    const before = tracker.snapshot();
    before.created.push('mutated');
    tracker.record('created', 'b.ts');
    expect(before.created).toEqual(['a.ts', 'mutated']);
    expect(tracker.snapshot().created).toEqual(['a.ts', 'b.ts']);
  });
});
