import { redact } from '../core/redact.js';

/** The endpoint variables issueloop reads (Actions and GitHub Enterprise set the first two). */
export const ENDPOINT_VARIABLES = ['GITHUB_API_URL', 'GITHUB_GRAPHQL_URL', 'ANTHROPIC_BASE_URL'] as const;

export interface EndpointProblem {
  name: (typeof ENDPOINT_VARIABLES)[number];
  problem: string;
  fix: string;
}

const EXAMPLE: Record<EndpointProblem['name'], string> = {
  GITHUB_API_URL: 'https://api.github.com',
  GITHUB_GRAPHQL_URL: 'https://api.github.com/graphql',
  ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
};

/**
 * Endpoint variables that can never work: set but not an http(s) URL. A run would otherwise start and
 * fail every session on them (`Invalid URL`), or retry GitHub for seconds without naming the variable.
 */
export function endpointProblems(env: Readonly<Record<string, string | undefined>>): EndpointProblem[] {
  const problems: EndpointProblem[] = [];
  for (const name of ENDPOINT_VARIABLES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)) continue;
    problems.push({
      name,
      problem: `${name} is not an http(s) URL: ${JSON.stringify(redact(value))}`,
      fix: `set ${name} to a URL such as ${EXAMPLE[name]}, or unset it`,
    });
  }
  return problems;
}
