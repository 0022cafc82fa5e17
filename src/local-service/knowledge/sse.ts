// Server-Sent Events (the framing of OpenAI-style streamed completions), read with
// eventsource-parser: UTF-8 decoded across chunk edges, one data string per event.
import { createParser } from 'eventsource-parser';

export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  function* drain(): Generator<string> {
    for (const data of ready.splice(0)) yield data;
  }
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* drain();
  }
  // A stream that ended without a blank line still ends its last event (as models' do).
  parser.feed(`${decoder.decode()}\n\n`);
  yield* drain();
}
