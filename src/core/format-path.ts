/** `['claims', 'ttl']` → `claims.ttl`, `['issues', '7', 'failure_reasons', 0]` → `issues.7.failure_reasons[0]`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}
