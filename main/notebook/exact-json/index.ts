export { JsonTooDeepError, MAX_JSON_DEPTH, nestsTooDeep } from './depth';
export { parseExactJson, parsePythonJson, JsonSyntaxError } from './parse';
export { writePythonJson } from './write';
export { carryExactNumbers, exactNumberText, exactNumbersOf, hasExactNumbers, keepExactNumber } from './exact-numbers';
export { exactNumberPointers, restoreExactNumbers } from './pointers';
