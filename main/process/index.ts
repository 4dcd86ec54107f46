export {
  findProcessesByMarker,
  isAlive,
  killRunTree,
  killStragglers,
  killTreeOnExit,
  newRunId,
  RUN_ID_VARIABLE,
  signalGroup,
  signalSessionMembers,
  stopProcessGroup,
} from './kill';
export { findExecutable } from './find-executable';
export { capText, CappedText, headAndTail, trimMiddle, type CapLimits, type CappedParts } from './capped-text';
