// A Server-Sent Events reader (the framing of OpenAI-style streamed completions): decodes
// UTF-8 across chunk edges, accepts \n, \r\n and \r line ends, joins multi-line data fields
// and yields one data string per event.

export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  function* lines(final: boolean): Generator<string> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end may be the first half of \r\n: wait for more unless final.
      if (end === -1 || (!final && end === buffer.length - 1 && buffer[end] === '\r')) return;
      const width = buffer.startsWith('\r\n', end) ? 2 : 1;
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + width);
    }
  }
  function* handle(line: string): Generator<string> {
    if (line === '') {
      if (data.length > 0) yield data.join('\n');
      data = [];
      return;
    }
    if (line.startsWith(':')) return; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
  }
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const line of lines(false)) yield* handle(line);
  }
  buffer += decoder.decode();
  for (const line of lines(true)) yield* handle(line);
  if (buffer !== '') yield* handle(buffer);
  if (data.length > 0) yield data.join('\n'); // a stream that ended without a blank line
}
