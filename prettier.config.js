// The style the code is written in: single quotes, semicolons, trailing commas, lines up to 120 columns.
/** @type {import('prettier').Config} */
export default {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  // YAML here quotes with double quotes.
  overrides: [{ files: ['*.yml', '*.yaml'], options: { singleQuote: false } }],
};
