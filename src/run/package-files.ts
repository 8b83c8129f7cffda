/**
 * Files shipped in the package, found relative to this module: dist/run/ from tsc and dist/bin/ (the
 * bundled executable) are both two levels below the package, so these paths hold in either layout.
 * A module deeper in the tree (dist/cli/commands/) must not compute them itself.
 */
export const EXAMPLE_CONFIG = new URL('../../examples/issueloop.config.yaml', import.meta.url);
