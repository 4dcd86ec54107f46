export { VariablesPanel } from './VariablesPanel';
