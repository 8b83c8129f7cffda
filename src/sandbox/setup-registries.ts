/**
 * `sandbox.setup_domains`: the hosts `session.setup` may reach. Setup runs the branch's own scripts
 * (an npm `preinstall`, a `setup.py`), so it gets the package registries it needs and nothing else.
 * An entry is a preset's name, `auto` (the presets of the ecosystems the repository uses, detected
 * from the top-level manifests and lockfiles of the base branch, never of the agent's branch), or a
 * host as in `allow_domains`. The default is `[auto]`.
 */

export const REGISTRY_PRESETS = {
  npm: ['registry.npmjs.org', 'registry.yarnpkg.com'],
  pypi: ['pypi.org', 'files.pythonhosted.org'],
  crates: ['crates.io', 'index.crates.io', 'static.crates.io'],
  go: ['proxy.golang.org', 'sum.golang.org'],
  rubygems: ['rubygems.org', 'index.rubygems.org'],
  maven: ['repo.maven.apache.org', 'repo1.maven.org'],
  // The plugin portal and the wrapper's distributions, each with the host it redirects downloads to,
  // and Maven Central, where most of a Gradle build's dependencies come from.
  gradle: [
    'plugins.gradle.org',
    'plugins-artifacts.gradle.org',
    'services.gradle.org',
    'downloads.gradle.org',
    'repo.maven.apache.org',
    'repo1.maven.org',
  ],
} as const satisfies Record<string, readonly string[]>;

export type RegistryPreset = keyof typeof REGISTRY_PRESETS;
export const AUTO = 'auto';

/** Which files say a repository uses an ecosystem (at its top level). */
const MARKERS: ReadonlyArray<readonly [RegistryPreset, RegExp]> = [
  ['npm', /^(package\.json|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?)$/],
  [
    'pypi',
    /^(requirements[\w.-]*\.txt|pyproject\.toml|setup\.py|setup\.cfg|Pipfile|Pipfile\.lock|poetry\.lock|uv\.lock)$/,
  ],
  ['crates', /^Cargo\.(toml|lock)$/],
  ['go', /^go\.(mod|sum)$/],
  ['rubygems', /^(Gemfile|Gemfile\.lock|[\w.-]+\.gemspec)$/],
  ['maven', /^pom\.xml$/],
  ['gradle', /^(build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradlew|gradle\.properties)$/],
];

/** The presets whose manifests or lockfiles are at the top of `names` (a directory's entries). */
export function detectPresets(names: readonly string[]): RegistryPreset[] {
  return MARKERS.filter(([, pattern]) => names.some((name) => pattern.test(name))).map(([preset]) => preset);
}

function isPreset(entry: string): entry is RegistryPreset {
  return Object.hasOwn(REGISTRY_PRESETS, entry);
}

/**
 * The hosts of `setup_domains` for a session: presets expanded, `auto` as the presets detected in
 * `baseEntries` (the top level of the base branch's revision), other entries as they are; then
 * `allow_domains`. Detection happens only where `auto` is listed:
 * `[auto, npm.pkg.github.com]` adds a host to the detected registries, `[npm]` is npm's alone.
 */
export function setupHosts(
  setupDomains: readonly string[],
  allowDomains: readonly string[],
  baseEntries: () => readonly string[],
): string[] {
  const hosts = new Set<string>();
  for (const entry of setupDomains) {
    const presets = entry === AUTO ? detectPresets(baseEntries()) : isPreset(entry) ? [entry] : [];
    if (entry !== AUTO && !isPreset(entry)) hosts.add(entry);
    for (const preset of presets) for (const host of REGISTRY_PRESETS[preset]) hosts.add(host);
  }
  for (const host of allowDomains) hosts.add(host);
  return [...hosts];
}
