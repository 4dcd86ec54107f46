export {
  EditAssistantService,
  type EditAssistantEmit,
  type EditConfigSource,
  type EditFileAccess,
  type EditAssistantServiceOptions,
} from './service';
export { editAssistantHandlers } from './handlers';
