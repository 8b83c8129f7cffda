/**
 * `protected_paths`: where a change is never delivered by an agent. A workflow or an action runs with
 * the repository's secrets on the next push; CODEOWNERS decides who must approve; `.gitmodules`
 * points a checkout at other repositories. A session that touches one ends `refused` and the issue
 * goes to a human.
 */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  '.github/workflows/**',
  '.github/actions/**',
  'CODEOWNERS',
  '.github/CODEOWNERS',
  'docs/CODEOWNERS',
  '.gitmodules',
];

/** The entry of a `protected_paths` list that stands for the defaults (webpack's convention). */
export const DEFAULTS_ENTRY = '...';

/**
 * The globs in force. A list replaces the defaults, so `[]` turns them off; `'...'` in it stands for
 * them, so `['...', 'infra/**']` adds one glob.
 */
export function protectedGlobs(configured: readonly string[]): string[] {
  const globs = configured.flatMap((entry) => (entry === DEFAULTS_ENTRY ? DEFAULT_PROTECTED_PATHS : [entry]));
  return [...new Set(globs)];
}

/**
 * What a run and `doctor` warn about: the defaults a configured list leaves out (all of them for
 * `[]`), since a change there is then delivered like any other.
 */
export function protectedPathsWarning(configured: readonly string[]): string | undefined {
  const globs = new Set(protectedGlobs(configured));
  const dropped = DEFAULT_PROTECTED_PATHS.filter((glob) => !globs.has(glob));
  if (dropped.length === 0) return undefined;
  const what =
    configured.length === 0
      ? `protected_paths: [] turns off the defaults (${dropped.join(', ')})`
      : `protected_paths leaves out the defaults ${dropped.join(', ')}`;
  return `${what}: the agent's changes there are delivered (workflows and actions run with the repository's secrets on push); add '${DEFAULTS_ENTRY}' to the list to keep the defaults`;
}
