import { expect, it } from 'vitest';
import type { KilnBridge } from '../../../shared/contract';
import { PressedRowTicket } from './download-tickets';

// The helpers resolve the host's relative URL against the page's origin.
(globalThis as unknown as { window: { location: { origin: string } } }).window ??= {
  location: { origin: 'http://127.0.0.1:9' },
};

/** A bridge whose `download.ticket` answers only when the test says so, as a host over a socket would. */
function slowBridge() {
  const asked: string[] = [];
  const answers: Array<() => void> = [];
  const bridge = {
    request: (_channel: string, args: { path: string }) =>
      new Promise((resolve) => {
        asked.push(args.path);
        answers.push(() => resolve({ url: `/download?path=${args.path}&ticket=t${asked.length}` }));
      }),
  } as unknown as KilnBridge;
  return { bridge, asked, answerAll: () => answers.splice(0).forEach((answer) => answer()) };
}

it("a pressed row's ticket is taken by the drag that follows, once, and only for that row", async () => {
  const { bridge, asked, answerAll } = slowBridge();
  const tickets = new PressedRowTicket();
  const first = tickets.press(bridge, 'a.txt');
  expect(asked).toEqual(['a.txt']);
  answerAll();
  await first;
  expect(tickets.take('b.txt')).toBeUndefined();
  const second = tickets.press(bridge, 'a.txt');
  answerAll();
  await second;
  expect(tickets.take('a.txt')).toBe(`${window.location.origin}/download?path=a.txt&ticket=t2`);
  // Spent by taking: a second drag without a new press carries no DownloadURL.
  expect(tickets.take('a.txt')).toBeUndefined();
});

it('a drag that starts before the ticket arrived carries none', () => {
  const { bridge } = slowBridge();
  const tickets = new PressedRowTicket();
  void tickets.press(bridge, 'a.txt');
  expect(tickets.take('a.txt')).toBeUndefined();
});
