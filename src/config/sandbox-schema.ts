import { z } from 'zod';

const absolutePath = z.string().regex(/^\//, 'expected an absolute path');

const hostPattern = z
  .string()
  .regex(
    /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i,
    'expected a host name such as registry.npmjs.org or *.example.com',
  );

/** `sandbox.setup_domains` presets (their hosts: sandbox/setup-registries.ts). */
export const SETUP_PRESETS = ['auto', 'npm', 'pypi', 'crates', 'go', 'rubygems', 'maven', 'gradle'] as const;

/** `sandbox:` — what confines everything the agent runs (README, "Security model"). */
export const SandboxSchema = z.strictObject({
  /**
   * `os`: everything the agent runs (bash tool, verify, setup, the claude process) runs under
   * bubblewrap; `none`: unconfined, only when you say so (doctor warns, every tracking comment says so).
   */
  mode: z.enum(['os', 'none']).default('os'),
  /**
   * What the bash tool and verify reach, through issueloop's egress proxy: `none` (default), only
   * `allow_domains`; `full`, any public host. Never loopback, private ranges or the host's own
   * addresses; setup and claude have allowlists of their own.
   */
  network: z.enum(['none', 'full']).default('none'),
  /** More directories shown read-only inside (a toolchain that is not on PATH). */
  read_only: z.array(absolutePath).default([]),
  /**
   * Hosts every sandboxed role may reach through issueloop's proxy: `registry.npmjs.org`, or
   * `*.example.com` for its subdomains.
   */
  allow_domains: z.array(hostPattern).default([]),
  /**
   * Hosts `session.setup` may reach, besides `allow_domains`: `auto` (the package registries of the
   * ecosystems the base branch's top-level manifests and lockfiles name), a preset (npm, pypi, crates, go,
   * rubygems, maven, gradle), or a host. `[auto, npm.pkg.github.com]` adds to the detected registries.
   */
  setup_domains: z.array(z.union([z.enum(SETUP_PRESETS), hostPattern])).default(['auto']),
  /** Ports besides 80 and 443 that allowed hosts may be reached on. */
  allow_ports: z.array(z.int().min(1).max(65_535)).default([]),
});
