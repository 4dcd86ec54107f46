export { ConfigService, PROJECT_CONFIG_PATH, type ConfigServiceOptions } from './service';
export {
  loadConfig,
  readConfigRef,
  resolveConfigRef,
  type AgentBlock,
  type ConfigFileLocation,
  type ModelConfig,
  type PromptedBlock,
  type JupyterSetting,
  type ResolvedConfig,
} from './load';
export { configHandlers } from './handlers';
