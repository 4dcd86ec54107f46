export { attachCellLanguage, completionName, staticCompletions, type CellLanguageSource } from './cell-language';
export { cellNumberOf, trackCellNumbers } from './cell-numbers';
