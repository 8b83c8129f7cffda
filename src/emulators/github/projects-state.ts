import type { FieldRecord, ItemRecord, OptionRecord, ProjectRecord } from './records.js';
import type { Store } from './store.js';
import type { ProjectSnapshot } from './types.js';

export const DEFAULT_STATUS_OPTIONS: readonly string[] = ['Todo', 'In Progress', 'Done'];

// The colours a new board's Status options get on GitHub; any other option starts out gray.
const DEFAULT_COLORS: Record<string, string> = { Todo: 'GREEN', 'In Progress': 'YELLOW', Done: 'PURPLE' };

export interface OptionInput {
  name: string;
  color?: string;
  description?: string;
}

function makeOptions(store: Store, inputs: readonly OptionInput[]): OptionRecord[] {
  return inputs.map((input) => ({
    id: store.ids.option(),
    name: input.name,
    color: input.color ?? DEFAULT_COLORS[input.name] ?? 'GRAY',
    description: input.description ?? '',
  }));
}

export function createProject(
  store: Store,
  seed: { owner: string; title: string; number?: number; statusOptions?: readonly string[] },
): ProjectRecord {
  const owner = store.ensureUser(seed.owner, 'Organization').login;
  const taken = store.projects.filter((p) => p.owner === owner).map((p) => p.number);
  const number = seed.number ?? Math.max(0, ...taken) + 1;
  if (taken.includes(number)) throw new Error(`emulator: ${owner} already has project ${number}`);
  const serial = store.ids.next('project');
  const at = store.timestamp();
  const field: FieldRecord = {
    id: store.ids.node('PVTSSF', `field:${store.ids.next('field')}`),
    name: 'Status',
    options: makeOptions(
      store,
      (seed.statusOptions ?? DEFAULT_STATUS_OPTIONS).map((name) => ({ name })),
    ),
    createdAt: at,
    updatedAt: at,
  };
  const project: ProjectRecord = {
    id: store.ids.node('PVT', `project:${serial}`),
    number,
    title: seed.title,
    owner,
    closed: false,
    createdAt: at,
    updatedAt: at,
    fields: [field],
    items: [],
  };
  store.projects.push(project);
  return project;
}

export function findProject(store: Store, owner: string, number: number): ProjectRecord | undefined {
  return store.projects.find((p) => p.owner.toLowerCase() === owner.toLowerCase() && p.number === number);
}

export function projectById(store: Store, id: string): ProjectRecord | undefined {
  return store.projects.find((p) => p.id === id);
}

export function fieldById(
  store: Store,
  id: string,
): { project: ProjectRecord; field: FieldRecord } | undefined {
  for (const project of store.projects) {
    const field = project.fields.find((f) => f.id === id);
    if (field) return { project, field };
  }
  return undefined;
}

export function itemById(store: Store, id: string): { project: ProjectRecord; item: ItemRecord } | undefined {
  for (const project of store.projects) {
    const item = project.items.find((i) => i.id === id);
    if (item) return { project, item };
  }
  return undefined;
}

/** Adding content that is already on the board returns the existing item, as GitHub does. */
export function addItem(store: Store, project: ProjectRecord, contentId: string): ItemRecord | undefined {
  const existing = project.items.find((i) => i.contentId === contentId);
  if (existing) return existing;
  if (!store.issueByNodeId(contentId)) return undefined;
  const at = store.timestamp();
  const item: ItemRecord = {
    id: store.ids.node('PVTI', `item:${store.ids.next('item')}`),
    contentId,
    values: new Map(),
    createdAt: at,
    updatedAt: at,
  };
  project.items.push(item);
  project.updatedAt = at;
  return item;
}

/**
 * Replaces every option. GitHub gives each option a new id, even one whose name stayed, so the
 * values items held no longer point anywhere and are cleared.
 */
export function replaceOptions(
  store: Store,
  project: ProjectRecord,
  field: FieldRecord,
  inputs: OptionInput[],
) {
  field.options = makeOptions(store, inputs);
  field.updatedAt = store.timestamp();
  for (const item of project.items) item.values.delete(field.id);
  project.updatedAt = field.updatedAt;
}

export function projectUrl(store: Store, project: ProjectRecord, htmlBase: string): string {
  const kind = store.findUser(project.owner)?.type === 'Organization' ? 'orgs' : 'users';
  return `${htmlBase}/${kind}/${project.owner}/projects/${project.number}`;
}

export function projectSnapshot(store: Store, project: ProjectRecord, htmlBase: string): ProjectSnapshot {
  const optionName = (optionId: string | undefined) =>
    project.fields.flatMap((f) => f.options).find((o) => o.id === optionId)?.name;
  const status = project.fields.find((f) => f.name === 'Status');
  return {
    id: project.id,
    number: project.number,
    title: project.title,
    url: projectUrl(store, project, htmlBase),
    owner: project.owner,
    fields: project.fields.map((f) => ({
      id: f.id,
      name: f.name,
      options: f.options.map((o) => ({ id: o.id, name: o.name })),
    })),
    options: status ? status.options.map((o) => ({ id: o.id, name: o.name })) : [],
    items: project.items.map((item) => {
      const name = status ? optionName(item.values.get(status.id)) : undefined;
      return {
        itemId: item.id,
        contentId: item.contentId,
        issueNumber: store.issueByNodeId(item.contentId)?.number ?? 0,
        ...(name === undefined ? {} : { status: name }),
      };
    }),
  };
}
