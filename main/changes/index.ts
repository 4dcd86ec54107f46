export { ChangeFeed, type ChangeFeedOptions, type ChangeListener } from './feed';
