/**
 * Globs over repository paths (`/`-separated, relative to the root), for `protected_paths`. Written
 * here rather than taken from `path.matchesGlob` because that one's `*` and `**` skip names starting
 * with a dot, and `.github/workflows/.x.yml` is a workflow like any other.
 *
 * - A pattern is anchored at the repository root: `CODEOWNERS` is the root's; `**\/CODEOWNERS` any.
 * - `*` is any run of characters but `/`, `?` one of them, `**` as a whole segment any number of
 *   segments; dot-files are matched like other names. `[abc]`, `[!a-z]` and `{a,b}` work as in a shell.
 * - A pattern also covers everything below what it matches (`infra` covers `infra/main.tf`).
 * - Matching ignores case: a checkout on a case-insensitive file system (macOS, Windows) puts
 *   `.GitHub/Workflows/x.yml` and `.github/workflows/x.yml` in one directory.
 */
export interface PathGlob {
  /** The pattern as written. */
  pattern: string;
  /** True when the pattern or anything below it covers `path`. */
  covers(path: string): boolean;
  /**
   * True when `path` is a directory the pattern's literal start runs through (`.github` for
   * `.github/workflows/**`): replacing it (by a symlink, a file, a submodule) moves what the pattern
   * protects.
   */
  leadsTo(path: string): boolean;
}

/** Why `pattern` is not a glob this module accepts, or undefined. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'expected a glob such as infra/** or .github/**';
  if (/[\0\n\r]/.test(pattern)) return 'a glob cannot contain a NUL or a line break';
  const segments = normalised(pattern).split('/');
  if (segments.some((s) => s === '..' || s === '.')) return 'a glob cannot contain . or .. segments';
  try {
    toRegExp(normalised(pattern));
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

export function compileGlob(pattern: string): PathGlob {
  const clean = normalised(pattern);
  const regexp = toRegExp(clean);
  const literal: string[] = [];
  for (const segment of clean.split('/')) {
    if (/[*?[{]/.test(segment)) break;
    literal.push(segment.toLowerCase());
  }
  return {
    pattern,
    covers(path) {
      const segments = path.split('/');
      for (let end = segments.length; end > 0; end--) {
        if (regexp.test(segments.slice(0, end).join('/'))) return true;
      }
      return false;
    },
    leadsTo(path) {
      const segments = path.toLowerCase().split('/');
      return segments.length <= literal.length && segments.every((s, i) => s === literal[i]);
    },
  };
}

/** Leading `/` and `./`, and a trailing `/`, say nothing more: patterns are anchored anyway. */
function normalised(pattern: string): string {
  return pattern
    .trim()
    .replace(/^(?:\.?\/)+/, '')
    .replace(/\/+$/, '');
}

function toRegExp(pattern: string): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '*' && pattern.charAt(i + 1) === '*') {
      const whole = (i === 0 || pattern.charAt(i - 1) === '/') && [undefined, '/'].includes(pattern[i + 2]);
      if (!whole) throw new Error(`** must be a whole segment in ${pattern}`);
      // `a/**/b` also matches `a/b`; a trailing `**` matches anything below.
      out += pattern.charAt(i + 2) === '/' ? '(?:.*/)?' : '.*';
      i += pattern.charAt(i + 2) === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) throw new Error(`unclosed [ in ${pattern}`);
      let set = pattern.slice(i + 1, close);
      if (set.startsWith('!') || set.startsWith('^')) set = `^${set.slice(1)}`;
      out += `(?!/)[${set.replace(/[\\\]]/g, '\\$&')}]`;
      i = close;
    } else if (c === '{') {
      braces += 1;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces -= 1;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  if (braces > 0) throw new Error(`unclosed { in ${pattern}`);
  return new RegExp(`^${out}$`, 'is');
}
