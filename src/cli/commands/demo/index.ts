export { assessDemo, type DemoOutcome } from './demo-outcome.js';
export {
  createDemoRepo,
  DEMO_FILES,
  DEMO_OWNER,
  DEMO_REPO,
  DEMO_VERIFY_COMMAND,
  type DemoRepo,
} from './demo-repo.js';
export {
  type DemoIssues,
  type DemoScenario,
  startDemoScenario,
} from './demo-scenario.js';
export { type DemoRole, demoScript } from './demo-script.js';
