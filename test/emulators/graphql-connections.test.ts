import { describe, expect, it } from 'vitest';
import { connection } from '../../src/emulators/github/graphql-failure.js';

/** GitHub's connection arguments as the Relay algorithm: `after`/`before` bound, then `first` or `last`. */
const records = Array.from({ length: 10 }, (_, i) => i);
const read = (args: Parameters<typeof connection>[1]) => connection(records, args, 'comments', (n) => n);

describe("the emulator's GraphQL connections", () => {
  it('first and after page forward; last reads the end; last and before page backward', () => {
    const one = read({ first: 4 });
    expect(one.nodes).toEqual([0, 1, 2, 3]);
    expect(one.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const two = read({ first: 4, after: one.pageInfo.endCursor });
    expect(two.nodes).toEqual([4, 5, 6, 7]);
    const end = read({ last: 3 });
    expect(end.nodes).toEqual([7, 8, 9]);
    expect(end.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(read({ last: 3, before: end.pageInfo.startCursor }).nodes).toEqual([4, 5, 6]);
    expect(
      read({ first: 10, after: two.pageInfo.startCursor, before: end.pageInfo.endCursor }).nodes,
    ).toEqual([5, 6, 7, 8]);
    expect(read({ first: 5, after: end.pageInfo.endCursor }).nodes).toEqual([]);
    expect(connection([], { last: 5 }, 'comments', (n) => n).totalCount).toBe(0);
  });

  it('refuses what GitHub refuses: neither bound, both, more than 100, a cursor it never gave', () => {
    expect(() => read({})).toThrow(/must provide a `first` or `last`/);
    expect(() => read({ first: 2, last: 2 })).toThrow(/both `first` and `last`/);
    expect(() => read({ last: 101 })).toThrow(/exceeds the `last` limit of 100/);
    expect(() => read({ first: 2, after: 'bm9wZQ==' })).toThrow(/valid cursor/);
  });
});
