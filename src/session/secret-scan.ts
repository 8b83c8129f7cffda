import { renderedMatches, renderedView } from '../core/rendered-view.js';
import { MIN_DERIVED_LENGTH, type SecretForm, secretForms, secretsPattern } from '../core/secret-forms.js';

/** A secret found in what a change adds: where, and what kind of thing; never the value. */
export interface SecretHit {
  file: string;
  line: number;
  kind: string;
}

/** Credentials recognisable by their shape, whoever they belong to. */
const TOKEN_SHAPES: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  // No `\b` at the end: a `_` after the token (`ghp_…_x`) is a word character, and the scan missed it.
  { kind: 'GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/ },
  { kind: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{50,}/ },
  { kind: 'Anthropic key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { kind: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/ },
  { kind: 'Slack token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/ },
  { kind: 'private key', pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/ },
];

interface AddedLine {
  file: string;
  line: number;
  text: string;
}

/** The added lines of a unified diff (`git diff -U0`), with the file and new line number of each. */
export function addedLines(diff: string): AddedLine[] {
  const lines: AddedLine[] = [];
  let file = '';
  let next = 0;
  for (const raw of diff.split('\n')) {
    if (raw.startsWith('+++ ')) {
      const name = raw.slice(4);
      file = name.startsWith('b/') ? name.slice(2) : name;
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk) {
      next = Number(hunk[1]);
      continue;
    }
    if (raw.startsWith('+') && file !== '') {
      lines.push({ file, line: next, text: raw.slice(1) });
      next += 1;
    }
  }
  return lines;
}

/**
 * Every known secret (in any of its forms, also split over consecutive added lines, also as GitHub
 * would render it: percent-encoded or character-reference characters, invisible characters between
 * them, full-width forms) and every credential-shaped string a diff adds. The harness runs this
 * before it commits: a hit ends the session `refused` and nothing is pushed.
 */
export function findSecrets(diff: string, secrets: Iterable<string>): SecretHit[] {
  const forms: SecretForm[] = [];
  for (const secret of secrets) if (secret.length >= MIN_DERIVED_LENGTH) forms.push(...secretForms(secret));
  const kindOf = new Map(forms.map((form) => [form.text, form.kind]));
  const known = secretsPattern(forms, { split: true });
  const hits: SecretHit[] = [];
  const seen = new Set<string>();
  const hit = (at: AddedLine, kind: string) => {
    const key = `${at.file}:${at.line}:${kind}`;
    if (!seen.has(key)) hits.push({ file: at.file, line: at.line, kind });
    seen.add(key);
  };
  const lines = addedLines(diff);
  // Runs of consecutive added lines of one file, so that a secret split over two of them is found.
  for (let start = 0; start < lines.length; ) {
    let end = start + 1;
    while (
      end < lines.length &&
      lines[end]?.file === lines[start]?.file &&
      lines[end]?.line === (lines[end - 1]?.line ?? 0) + 1
    )
      end += 1;
    const run = lines.slice(start, end);
    const text = run.map((l) => l.text).join('\n');
    const offsets = run.map((_, i) => run.slice(0, i).reduce((sum, l) => sum + l.text.length + 1, 0));
    const lineAt = (index: number) => run[offsets.findLastIndex((offset) => offset <= index)] as AddedLine;
    if (known) {
      for (const match of text.matchAll(known)) {
        const kind = kindOf.get(match[0].replace(/\r?\n\+?[ \t]*/g, '')) ?? 'split';
        hit(lineAt(match.index), `known secret (${kind})`);
      }
      for (const [first] of renderedMatches(text, renderedView(text), [known])) {
        hit(lineAt(first), 'known secret (encoded)');
      }
    }
    for (const line of run) {
      const plain = renderedView(line.text)?.text;
      for (const shape of TOKEN_SHAPES) {
        if (shape.pattern.test(line.text) || (plain !== undefined && shape.pattern.test(plain)))
          hit(line, shape.kind);
      }
    }
    start = end;
  }
  return hits;
}

/** `secret in diff: a.txt:3 (known secret (base64)), …`: where, never what. */
export function describeHits(hits: readonly SecretHit[]): string {
  const shown = hits.slice(0, 5).map((h) => `${h.file}:${h.line} (${h.kind})`);
  const more = hits.length > 5 ? `, and ${hits.length - 5} more` : '';
  return `secret in diff: ${shown.join(', ')}${more}; nothing was committed or pushed`;
}
