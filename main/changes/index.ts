export { ChangeFeed, type ChangeFeedOptions } from './feed';
