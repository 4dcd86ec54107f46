import { isAbsolutePath } from '../../../shared/paths';

/** The log's tab is keyed by the file's absolute path (`<dataDir>/logs/kiln.log`), as a library file's is. */
export function isLogPath(path: string): boolean {
  return isAbsolutePath(path) && /[\\/]logs[\\/]kiln\.log$/.test(path);
}
