export { attachCellLanguage, staticCompletions, type CellLanguageSource } from './cell-language';
export { itemsBesidesKernel } from './merge-completions';
export { cellNumberOf, cellNumbers, trackCellNumbers } from './cell-numbers';
