// `npm test`'s pretest: refuses a Node older than package.json's `engines` with the fix, before vitest
// fails on it in ways that name nothing (`Map.groupBy is not a function`).
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [major = 0, minor = 0] = engines.node
  .replace(/^>=\s*/, '')
  .split('.')
  .map(Number);
const [haveMajor = 0, haveMinor = 0] = process.versions.node.split('.').map(Number);
if (haveMajor < major || (haveMajor === major && haveMinor < minor)) {
  process.stderr.write(
    `issueloop's tests need Node.js ${major}.${minor} or newer (package.json engines); this is v${process.versions.node}.\n` +
      'fix: install Node 24 LTS: `nvm install 24` (the repository has an .nvmrc), your system package manager, or without either `npm install --prefix ~/.node24 node@24` and put ~/.node24/node_modules/.bin first on PATH\n',
  );
  process.exit(1);
}
