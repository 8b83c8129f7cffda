import type { IdSource } from './ids.js';
import type { LabelRecord } from './records.js';

export const DEFAULT_LABEL_COLOR = 'ededed';

/** The repository's labels, found by name whatever its case. */
export function labelRegistry(ids: IdSource) {
  const labels = new Map<string, LabelRecord>();
  function findLabel(name: string): LabelRecord | undefined {
    return labels.get(name.toLowerCase());
  }

  function ensureLabel(name: string, color = DEFAULT_LABEL_COLOR, description: string | null = null) {
    const existing = findLabel(name);
    if (existing) return existing;
    const id = ids.next('label');
    const label: LabelRecord = { id, nodeId: ids.node('LA', `label:${id}`), name, color, description };
    labels.set(name.toLowerCase(), label);
    return label;
  }
  return { findLabel, ensureLabel, allLabels: () => [...labels.values()] };
}
