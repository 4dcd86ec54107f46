import { describe, expect, it } from 'vitest';
import type { NotebookOutput } from '../../../shared/contract';
import { dataHandle, isDataResult } from './output-data';

const result = (data: Record<string, unknown>, type = 'execute_result'): NotebookOutput =>
  ({ output_type: type, data, metadata: {}, execution_count: 1 }) as NotebookOutput;

describe('a cell result opened in the data viewer', () => {
  it('recognises frames, series, arrays and polars frames; not other results or displays', () => {
    expect(isDataResult(result({ 'text/html': '<div>\n<table border="1" class="dataframe">', 'text/plain': '' }))).toBe(
      true,
    );
    expect(isDataResult(result({ 'text/plain': '0    1\n1    2\nName: a, dtype: int64' }))).toBe(true);
    expect(isDataResult(result({ 'text/plain': '0    1\n1    2\ndtype: float64' }))).toBe(true);
    expect(isDataResult(result({ 'text/plain': 'array([1, 2, 3])' }))).toBe(true);
    expect(isDataResult(result({ 'text/plain': 'shape: (3, 2)\n┌─────┬─────┐' }))).toBe(true);
    expect(isDataResult(result({ 'text/plain': '42' }))).toBe(false);
    expect(isDataResult(result({ 'text/plain': "'dtype: int64 is a phrase'" }))).toBe(false);
    expect(isDataResult(result({ 'text/html': '<table class="dataframe">' }, 'display_data'))).toBe(false);
  });

  it('finds the result by the last line when it is a plain name, else by Out[n]', () => {
    expect(dataHandle('df = pd.DataFrame({"a": [1]})\ndf', 3)).toBe('df');
    expect(dataHandle('df\n\n', null)).toBe('df');
    expect(dataHandle('import pandas as pd\ndf = pd.DataFrame({"a": [1]}); df', 2)).toBe('df');
    expect(dataHandle('print("a; b")', 4)).toBe('Out[4]');
    expect(dataHandle('pd.DataFrame({"a": [1]})', 7)).toBe('Out[7]');
    expect(dataHandle('df.head()', null)).toBeNull();
    expect(dataHandle('None', 2)).toBe('Out[2]');
  });
});
