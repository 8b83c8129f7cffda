/** The oldest Node.js issueloop runs on (package.json `engines`); the project targets Node 24 LTS. */
export const MIN_NODE = [22, 12] as const;

/** How to get a supported Node, with or without a version manager. */
export const NODE_FIX =
  'install Node 24 LTS: `nvm install 24` (the repository has an .nvmrc), your system package manager, or without either `npm install --prefix ~/.node24 node@24` and put ~/.node24/node_modules/.bin first on PATH';

export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/** Why this Node cannot run issueloop, with the fix; undefined when it can. */
export function nodeTooOld(version: string): string | undefined {
  if (nodeSupported(version)) return undefined;
  return `issueloop needs Node.js ${MIN_NODE.join('.')} or newer; this is ${version.startsWith('v') ? version : `v${version}`}.\nfix: ${NODE_FIX}\n`;
}
