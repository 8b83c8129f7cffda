import type { Env } from '../run/secrets.js';
import type { SummaryWriter } from './report.js';

/** The part of @actions/core the action uses, passed in so tests can record it. */
export interface ActionCore {
  getInput(name: string): string;
  setSecret(secret: string): void;
  setOutput(name: string, value: string): void;
  setFailed(message: string): void;
  notice(message: string, properties?: { title?: string }): void;
  warning(message: string, properties?: { title?: string }): void;
  error(message: string, properties?: { title?: string }): void;
  info(message: string): void;
  startGroup(name: string): void;
  endGroup(): void;
  summary: SummaryWriter & { write(): Promise<unknown> };
}

export interface ActionIo {
  /** The runner's environment (GITHUB_*, RUNNER_*, INPUT_*). */
  env: Env;
  cwd: string;
  core: ActionCore;
  version: string;
  /** The runner cancelling the job (SIGINT, then SIGTERM). */
  interrupt?: AbortSignal;
  fetch?: typeof fetch;
  writeSpacingMs?: number;
}
