// A finished text handed out as an async sequence of pieces (canned answers, composed answers).

export async function* fromArray(pieces: readonly string[]): AsyncIterable<string> {
  for (const piece of pieces) yield piece;
}
