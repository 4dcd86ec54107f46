export { Sandbox, DEFAULT_SANDBOX_SETTINGS, NO_SANDBOX_LINE, type SandboxSettings, type PreparedRun } from './sandbox';
export { probeSandbox, type SandboxStatus } from './machine';
export { sandboxProfile, describeRun, type SandboxProfile } from './profile';
export { type RunLimit } from './limits';
export {
  overlayChanges,
  ownerAlive,
  processStartTime,
  readRunRecord,
  removeRunDir,
  upperNames,
  type OverlayChange,
  type RunOverlay,
  type RunRecord,
} from './overlay';
