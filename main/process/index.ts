export {
  findProcessesByMarker,
  isAlive,
  killRunTree,
  killStragglers,
  killTreeOnExit,
  newRunId,
  processesOfRun,
  RUN_ID_VARIABLE,
  signalGroup,
  stopProcessGroup,
} from './kill';
export { findExecutable } from './find-executable';
export { capText, CappedText, headAndTail, joinWithNote, trimMiddle, type CapLimits, type CappedParts } from './capped-text';
