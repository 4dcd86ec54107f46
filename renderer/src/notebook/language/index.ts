export { attachCellLanguage, staticCompletions, type CellLanguageSource } from './cell-language';
export { itemsBesidesKernel } from './merge-completions';
export { cellNumberOf, trackCellNumbers } from './cell-numbers';
