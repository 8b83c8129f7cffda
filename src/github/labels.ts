import { type GitHubClient, repoPath } from './client.js';
import { getConditional } from './conditional-get.js';
import type { EtagCache } from './etag-cache.js';
import { httpStatusOf } from './github-error.js';

/** On an issue while a session works it. */
export const IN_PROGRESS_LABEL = 'issueloop:in-progress';
/** On an issue that failed `claims.max_failures` times: a person takes it from here. */
export const NEEDS_HUMAN_LABEL = 'issueloop:needs-human';
/** On an issue whose first session writes a plan a maintainer approves (`/approve`, `/revise`). */
export const PLAN_LABEL = 'issueloop:plan';
/** Put on an issue by a person: its next claim runs `attempts.n` attempts and delivers the best one. */
export const BEST_OF_N_LABEL = 'issueloop:best-of-N';

/**
 * The labels issueloop puts on issues or reads from them (`init` creates them all, so a maintainer can
 * pick them), created on first use with a colour and a description.
 */
export const OWN_LABELS: Readonly<Record<string, { color: string; description: string }>> = {
  [IN_PROGRESS_LABEL]: { color: '1d76db', description: 'issueloop is working on this issue' },
  [NEEDS_HUMAN_LABEL]: { color: 'd93f0b', description: 'issueloop gave up after repeated failures' },
  [PLAN_LABEL]: { color: 'c5def5', description: 'issueloop posts a plan to approve before it works' },
  [BEST_OF_N_LABEL]: {
    color: 'bfd4f2',
    description: 'issueloop runs several attempts and delivers the best',
  },
};

export function createLabelOperations(gh: GitHubClient, cache: EtagCache) {
  const { owner, name: repo } = gh.repo;
  /** Once per run and label, shared by sessions that ask at the same time (else each one created it). */
  const ensured = new Map<string, Promise<boolean>>();

  /** True when this call created the label; false when it was there (or another run made it meanwhile). */
  async function ensure(name: string, own: { color: string; description: string }): Promise<boolean> {
    const url = `${repoPath(gh.repo)}/labels/${encodeURIComponent(name)}`;
    const exists = await getConditional(gh, cache, url, () => true, `read label ${name}`).then(
      () => true,
      (err: unknown) => {
        if (httpStatusOf(err) === 404) return false;
        throw err;
      },
    );
    if (exists) return false;
    return gh.call(`create label ${name}`, async () => {
      try {
        await gh.rest.issues.createLabel({ owner, repo, name, ...own });
        return true;
      } catch (err) {
        // 422 already_exists: another run made it in between.
        if (httpStatusOf(err) !== 422) throw err;
        return false;
      }
    });
  }

  return {
    /**
     * Creates one of issueloop's own labels when the repository lacks it (GitHub would otherwise
     * create it grey on first use). The existence check is conditional: free after the first run.
     * Resolves true when it created the label (`issueloop init` says which ones it made).
     */
    ensureLabel(name: string, spec?: { color: string; description: string }): Promise<boolean> {
      const own = spec ?? OWN_LABELS[name];
      if (!own) return Promise.resolve(false);
      const known = ensured.get(name);
      if (known) return known;
      const made = ensure(name, own).catch((err: unknown) => {
        ensured.delete(name); // the next caller tries again
        throw err;
      });
      ensured.set(name, made);
      return made;
    },

    async addLabels(issue: number, labels: string[]): Promise<void> {
      await gh.call(`label #${issue}`, () =>
        gh.rest.issues.addLabels({ owner, repo, issue_number: issue, labels }),
      );
    },

    /** Removes a label; one that is not on the issue is already removed. */
    async removeLabel(issue: number, name: string): Promise<void> {
      await gh.call(`unlabel #${issue}`, async () => {
        try {
          await gh.rest.issues.removeLabel({ owner, repo, issue_number: issue, name });
        } catch (err) {
          if (httpStatusOf(err) !== 404) throw err;
        }
      });
    },
  };
}

export type LabelOperations = ReturnType<typeof createLabelOperations>;
