export { attachCellLanguage, staticCompletions, type CellLanguageSource } from './cell-language';
export { itemsBesidesKernel } from './merge-completions';
export { useCellNumbers, type CellNumbers } from './cell-numbers';
