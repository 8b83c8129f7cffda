import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The Claude Code release the engine is proven against: .ci/run installs it, fixtures are recorded from it. */
export const CLAUDE_CODE_VERSION = readFileSync(
  fileURLToPath(new URL('../../.ci/claude-code.version', import.meta.url)),
  'utf8',
).trim();
