import { realpath } from 'node:fs/promises';
import { resolveInside } from './tools/confine-path.js';
import { openConfined } from './tools/confined-open.js';

/** Boot and identity files are context, not code: anything longer is cut to keep the prompt sane. */
export const MAX_PROJECT_FILE_CHARS = 20_000;

const DIRECTIVE = /^\s*<!--\s*boot:\s*(\S+?)\s*-->/;

/**
 * The `<!-- boot: path -->` directive, when it opens the issue body (seed 000 feature 1). Read it from
 * the raw body: the sanitiser removes HTML comments before the text reaches the model.
 */
export function parseBootDirective(rawBody: string | null | undefined): string | undefined {
  const match = DIRECTIVE.exec(rawBody ?? '');
  return match?.[1];
}

export interface ProjectFile {
  /** Relative to the worktree. */
  path: string;
  text: string;
  truncated: boolean;
}

/**
 * Reads a file that must stay inside the worktree; undefined when it does not exist. The harness
 * reads identity files again before every model call, after the agent's commands ran: the file is
 * opened as the editor opens one (no symlink on the way, no hard link), so it cannot be a way to
 * put a file from elsewhere on the machine into the prompt.
 */
export async function readProjectFile(worktree: string, requested: string): Promise<ProjectFile | undefined> {
  const confined = await resolveInside(worktree, requested);
  let text: string;
  try {
    const handle = await openConfined(await realpath(worktree), confined.relative, 'read', requested);
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw err;
  }
  return { path: confined.relative, ...capProjectText(text) };
}

/** A boot or identity file's text, cut at MAX_PROJECT_FILE_CHARS with a marker. */
export function capProjectText(text: string): { text: string; truncated: boolean } {
  const truncated = text.length > MAX_PROJECT_FILE_CHARS;
  return { text: truncated ? `${text.slice(0, MAX_PROJECT_FILE_CHARS)}\n… (truncated)` : text, truncated };
}

export interface BootFile extends ProjectFile {
  source: 'directive' | 'config';
}

export interface BootLookup {
  boot?: BootFile;
  /** Why a directive was not used (refused path, missing file), for the log and the ledger. */
  warnings: string[];
}

/**
 * The project context for the system prompt: the issue's directive wins over the configured file
 * (`.issueloop/boot.md` by default). A directive pointing outside the repository, or at nothing,
 * is reported and the configured file is used instead.
 */
export async function findBootFile(
  worktree: string,
  rawIssueBody: string | null | undefined,
  configured: string,
): Promise<BootLookup> {
  const warnings: string[] = [];
  const directive = parseBootDirective(rawIssueBody);
  if (directive) {
    try {
      const file = await readProjectFile(worktree, directive);
      if (file) return { boot: { ...file, source: 'directive' }, warnings };
      warnings.push(`boot directive names ${directive}, which does not exist; using ${configured}`);
    } catch (err) {
      warnings.push(`boot directive ignored: ${(err as Error).message}`);
    }
  }
  try {
    const file = await readProjectFile(worktree, configured);
    return file ? { boot: { ...file, source: 'config' }, warnings } : { warnings };
  } catch (err) {
    warnings.push(`boot file ignored: ${(err as Error).message}`);
    return { warnings };
  }
}

/**
 * The identity files, read again before every model call (seed 002), so an edit takes effect at once.
 * Missing files are skipped; a path outside the worktree is skipped too (config is trusted, but the
 * worktree's symlinks are not).
 */
export async function readIdentityFiles(worktree: string, paths: readonly string[]): Promise<string> {
  const parts: string[] = [];
  for (const path of paths) {
    let file: ProjectFile | undefined;
    try {
      file = await readProjectFile(worktree, path);
    } catch {
      file = undefined;
    }
    if (file && file.text.trim() !== '')
      parts.push(`<identity file="${file.path}">\n${file.text.trim()}\n</identity>`);
  }
  return parts.join('\n\n');
}
