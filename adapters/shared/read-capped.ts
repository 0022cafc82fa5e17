// Reading a downloaded file (a Slack file, a Discord attachment) into memory without ever
// holding more than the size cap: the download stops as soon as the cap is passed.

/** The body's bytes; throws tooBig() (after cancelling the download) past maxBytes. */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooBig: () => Error,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooBig();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
