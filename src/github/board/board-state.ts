import { z } from 'zod';

/**
 * `<state_dir>/board.json`: the resolved ids of the board (project, Status field, option ids), the
 * item id of every issue added, and the moves that failed and wait for the next round. All of it
 * can be re-resolved from GitHub, so an unreadable file is a cache miss, not a lost state.
 */
export const BOARD_STATE_VERSION = 1;

export const PHASES = ['queued', 'working', 'review', 'done', 'blocked', 'plan_review'] as const;
/** Phases a board may lack: an issue is then not moved, and neither `board init` nor doctor asks for them. */
export const OPTIONAL_PHASES: ReadonlySet<string> = new Set(['plan_review']);
export type BoardPhase = (typeof PHASES)[number];

const ResolvedSchema = z.object({
  /** Which configuration this was resolved for: a changed project setting re-resolves. */
  key: z.string(),
  projectId: z.string(),
  number: z.int(),
  title: z.string(),
  url: z.string(),
  itemCount: z.int().nonnegative(),
  fieldId: z.string(),
  fieldName: z.string(),
  options: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      color: z.string().optional(),
      description: z.string().optional(),
    }),
  ),
});

const PendingSchema = z.object({
  nodeId: z.string(),
  phase: z.enum(PHASES),
  error: z.string(),
  at: z.string(),
  attempts: z.int().nonnegative(),
});

export const BoardStateSchema = z.object({
  version: z.literal(BOARD_STATE_VERSION),
  resolved: ResolvedSchema.nullable(),
  items: z.record(z.string(), z.string()),
  pending: z.record(z.string(), PendingSchema),
});

export type ResolvedBoard = z.infer<typeof ResolvedSchema>;
export type PendingMove = z.infer<typeof PendingSchema>;
export type BoardState = z.infer<typeof BoardStateSchema>;

export function emptyBoardState(): BoardState {
  return { version: BOARD_STATE_VERSION, resolved: null, items: {}, pending: {} };
}
