import type { HandlersFor } from '../router';
import type { ConfigService } from './service';

export function configHandlers(config: ConfigService): HandlersFor<'config.get'> {
  return {
    'config.get': () => config.state(),
  };
}
