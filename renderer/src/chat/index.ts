import './chat.css';

export { Composer, type ComposerHandle, type ComposerProps } from './Composer';
export {
  ChatLog,
  ChatLogEmpty,
  ThinkingDots,
  UserMessage,
  AssistantMessage,
  ChatMarker,
  ChatError,
} from './transcript';
export { ChatHeader, ConfigErrorBanner, ModelsWithheld, SetupNeeded } from './PanelChrome';
