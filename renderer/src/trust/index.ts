export { TrustBanner } from './TrustBanner';
