export {
  isKilnTempName,
  Workspace,
  type DiskState,
  type EntryState,
  type CreateFilesResult,
  type NewFile,
  type ReplacedFile,
  type WorkspaceOptions,
  type WriteOptions,
} from './workspace';
export { PathGuard } from './guard';
export { OriginLedger, agentJournalPath } from './origin-ledger';
export { hashText, decodeText } from './encoding';
export { duplicateName } from './naming';
export { workspaceHandlers, type ShownPath } from './handlers';
export { osTrash } from './os-trash';
