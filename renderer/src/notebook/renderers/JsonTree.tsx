import { formatJsonExact, jsonPointer } from '../../../../shared/python-json';

/** Children shown per level before "… n more" (a 100,000-row records list stays a few nodes). */
const MAX_CHILDREN = 500;
/**
 * Levels shown before "too deep to show": main opens notebooks nesting up to 1,000 levels (more than Jupyter reads),
 * and a tree that deep is neither readable (20 px of indent a level) nor cheap to lay out; the rest is in the file.
 */
export const MAX_SHOWN_DEPTH = 20;

function summaryOf(value: object): string {
  if (Array.isArray(value)) return `Array(${value.length})`;
  const count = Object.keys(value).length;
  return `{…} ${count} key${count === 1 ? '' : 's'}`;
}

/** A cell's numbers as its file writes them, by JSON pointer (NotebookCell.exactNumbers), and where a value sits. */
interface ExactNumbers {
  numbers?: Readonly<Record<string, string>>;
  at: string;
}

function Leaf({ value, numbers, at }: { value: unknown } & ExactNumbers) {
  const type = value === null ? 'null' : typeof value;
  // Numbers as the file has them: 1.0 shows 1.0, 1e-05 as 1e-05, NaN as NaN.
  return <span className={`json-${type}`}>{formatJsonExact(value, numbers, at)}</span>;
}

function JsonNode({
  name,
  value,
  depth,
  numbers,
  at,
}: { name: string | null; value: unknown; depth: number } & ExactNumbers) {
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-row">
        {name !== null && <span className="json-key">{name}: </span>}
        <Leaf value={value} numbers={numbers} at={at} />
      </div>
    );
  }
  if (depth >= MAX_SHOWN_DEPTH) {
    return (
      <div className="json-row json-more" role="note">
        {name !== null && <span className="json-key">{name}: </span>}
        {summaryOf(value)} … too deep to show (more than {MAX_SHOWN_DEPTH} levels)
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : Object.entries(value);
  // <details>: the browser's find-in-page opens a closed branch that holds a match.
  return (
    <details className="json-branch" open={depth < 1}>
      <summary>
        {name !== null && <span className="json-key">{name}: </span>}
        <span className="json-summary">{summaryOf(value)}</span>
      </summary>
      <div className="json-children">
        {entries.slice(0, MAX_CHILDREN).map(([key, item]) => (
          <JsonNode key={key} name={key} value={item} depth={depth + 1} numbers={numbers} at={jsonPointer(at, key)} />
        ))}
        {entries.length > MAX_CHILDREN && (
          <div className="json-row json-more">… {entries.length - MAX_CHILDREN} more</div>
        )}
      </div>
    </details>
  );
}

/** `application/json` and unknown `+json` outputs: a collapsible tree, the first level open. */
export function JsonTree({ value, numbers, at }: { value: unknown } & ExactNumbers) {
  return (
    <div className="nb-out-json" role="group" aria-label="JSON output">
      <JsonNode name={null} value={value} depth={0} numbers={numbers} at={at} />
    </div>
  );
}
