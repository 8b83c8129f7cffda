export { assessDemo, type DemoOutcome } from './demo-outcome.js';
export {
  assessFollowUp,
  assessMerged,
  DEMO_CHECK,
  demoPull,
  failCi,
  passCiAndMerge,
} from './demo-pulls.js';
export {
  createDemoRepo,
  DEMO_FILES,
  DEMO_OWNER,
  DEMO_REPO,
  DEMO_VERIFY_COMMAND,
  type DemoRepo,
} from './demo-repo.js';
export {
  DEMO_MAINTAINER,
  type DemoIssues,
  type DemoScenario,
  startDemoScenario,
} from './demo-scenario.js';
export { type DemoRole, demoScript } from './demo-script.js';
