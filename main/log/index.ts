export {
  closeLog,
  createLogger,
  LOG_FILE,
  logFileOf,
  LogSink,
  openLog,
  startLog,
  redactFields,
  redactText,
  type LogFields,
  type Logger,
  type LogLevel,
  type LogOptions,
} from './logger';
export { logHandlers, readLogTail } from './handlers';
