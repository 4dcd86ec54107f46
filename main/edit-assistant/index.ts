export {
  EditAssistantService,
  type EditConfigSource,
  type EditFileAccess,
  type EditAssistantServiceOptions,
} from './service';
export { editAssistantHandlers } from './handlers';
