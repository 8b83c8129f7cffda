import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadGitHubSchema } from '../helpers/github-schema.js';

/**
 * Every GraphQL document in src/ (each is a `gql` literal) must be one GitHub accepts: validated
 * against the published schema from @octokit/graphql-schema. A document GitHub would reject fails CI.
 */
const root = new URL('../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function gqlDocuments(): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/\bgql`([^`]*)`/g)) {
      const line = source.slice(0, match.index).split('\n').length;
      out.push({ where: `${relative(root, file)}:${line}`, text: match[1] ?? '' });
    }
  }
  return out;
}

describe('GraphQL documents in src/', () => {
  const schema = loadGitHubSchema();
  const documents = gqlDocuments();

  it('finds the documents (the scan itself works)', () => {
    expect(documents.length).toBeGreaterThanOrEqual(7);
    expect(documents.every((d) => !d.text.includes('${'))).toBe(true);
  });

  it.each(documents.map((d) => [d.where, d.text] as const))(
    '%s validates against GitHub’s schema',
    (_where, text) => {
      expect(validate(schema, parse(text)).map((e) => e.message)).toEqual([]);
    },
  );

  it('rejects a document GitHub would reject (the check can fail)', () => {
    const wrong =
      'query { repositoryOwner(login: "x") { ... on ProjectV2Owner { projectV2(number: 1) { statusField { id } } } } }';
    expect(validate(schema, parse(wrong)).length).toBeGreaterThan(0);
  });

  it('no GraphQL operation is sent from a string that is not a gql literal', () => {
    const stray: string[] = [];
    for (const file of sourceFiles(join(root, 'src'))) {
      if (file.includes(`${join('src', 'sandbox')}`)) continue;
      const source = readFileSync(file, 'utf8').replace(/\bgql`[^`]*`/g, '');
      if (/['"`]\s*(query|mutation)\s+[A-Za-z]*\s*[({]/.test(source)) stray.push(relative(root, file));
    }
    expect(stray).toEqual([]);
  });
});
