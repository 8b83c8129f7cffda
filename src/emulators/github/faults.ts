import type { GraphqlFault, RestFault } from './types.js';

/**
 * Queued failures, consumed first-registered first; each answers `times` matching requests. A fault
 * registered with `times: 0` is never answered: it cancels the pending faults with the same matcher,
 * so a test can end a long outage it started.
 */
export interface Faults {
  addRest(fault: RestFault): void;
  addGraphql(fault: GraphqlFault): void;
  takeRest(method: string, path: string): RestFault | undefined;
  takeGraphql(operationName: string | undefined, query: string): GraphqlFault | undefined;
  clear(): void;
}

interface Pending<T> {
  fault: T;
  left: number;
}

type Pattern = string | RegExp | undefined;

function matches(pattern: string | RegExp, text: string): boolean {
  return typeof pattern === 'string' ? pattern === text : pattern.test(text);
}

function samePattern(a: Pattern, b: Pattern): boolean {
  if (a instanceof RegExp && b instanceof RegExp) return a.source === b.source && a.flags === b.flags;
  return a === b;
}

function take<T>(queue: Pending<T>[], predicate: (fault: T) => boolean): T | undefined {
  const index = queue.findIndex((p) => predicate(p.fault));
  const pending = queue[index];
  if (!pending) return undefined;
  pending.left -= 1;
  if (pending.left <= 0) queue.splice(index, 1);
  return pending.fault;
}

function add<T>(queue: Pending<T>[], fault: T, times: number | undefined, same: (a: T, b: T) => boolean) {
  const left = times ?? 1;
  if (left > 0) {
    queue.push({ fault, left });
    return;
  }
  for (let i = queue.length - 1; i >= 0; i -= 1) {
    const pending = queue[i];
    if (pending && same(pending.fault, fault)) queue.splice(i, 1);
  }
}

export function createFaults(): Faults {
  const rest: Pending<RestFault>[] = [];
  const graphql: Pending<GraphqlFault>[] = [];
  return {
    addRest: (fault) =>
      add(
        rest,
        fault,
        fault.times,
        (a, b) => samePattern(a.path, b.path) && a.method?.toUpperCase() === b.method?.toUpperCase(),
      ),
    addGraphql: (fault) => add(graphql, fault, fault.times, (a, b) => samePattern(a.operation, b.operation)),
    takeRest: (method, path) =>
      take(
        rest,
        (f) => (f.method === undefined || f.method.toUpperCase() === method) && matches(f.path, path),
      ),
    takeGraphql: (operationName, query) =>
      take(graphql, (f) => {
        if (f.operation === undefined) return true;
        if (operationName !== undefined && matches(f.operation, operationName)) return true;
        return typeof f.operation === 'string' ? query.includes(f.operation) : f.operation.test(query);
      }),
    clear: () => {
      rest.length = 0;
      graphql.length = 0;
    },
  };
}
