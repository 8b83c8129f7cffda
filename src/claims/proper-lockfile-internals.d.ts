// proper-lockfile's internal module (pinned 4.1.x in package.json), read-only: see file-lock.ts.
declare module 'proper-lockfile/lib/lockfile.js' {
  const internals: unknown;
  export default internals;
}
