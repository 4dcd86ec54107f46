/**
 * Cells coming near the viewport get their Monaco editor one at a time, in the order they asked, each in a
 * task of its own. A cell's editor costs 10–20 ms to create; a notebook's first screen asks for about twenty
 * at once, and creating them together held the page for half a second right after its first paint. Between
 * turns the browser paints and handles input; a cell shows its text as plain text until its turn. The
 * operator's own intent (a click, focus, a find result) does not wait for a turn.
 */
export interface EditorTurn {
  /** The editor was created (or is no longer wanted): the next cell's turn follows in a task of its own. */
  release(): void;
}

interface Request {
  start: () => void;
  state: 'waiting' | 'active' | 'released';
}

const waiting: Request[] = [];
let active: Request | null = null;
let scheduled = false;

/** Calls `start` on its turn, which lasts until `release` (call it once the editor exists, or on unmount). */
export function requestEditorTurn(start: () => void): EditorTurn {
  const request: Request = { start, state: 'waiting' };
  waiting.push(request);
  scheduleTurn();
  return {
    release() {
      if (request.state === 'waiting') waiting.splice(waiting.indexOf(request), 1);
      const wasActive = request.state === 'active';
      request.state = 'released';
      if (wasActive && active === request) {
        active = null;
        scheduleTurn();
      }
    },
  };
}

function scheduleTurn(): void {
  if (scheduled || active || waiting.length === 0) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    const next = waiting.shift();
    if (!next) return;
    next.state = 'active';
    active = next;
    next.start();
  });
}
