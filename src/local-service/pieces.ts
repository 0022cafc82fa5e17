// Cutting a finished text into stream pieces of a few words. Whitespace stays attached to the
// piece it follows, so joining the pieces gives back the text exactly.

export function splitIntoPieces(text: string, wordsPerPiece = 3): string[] {
  const tokens = text.match(/\s+|\S+\s*/g) ?? [];
  const pieces: string[] = [];
  for (let i = 0; i < tokens.length; i += wordsPerPiece) {
    pieces.push(tokens.slice(i, i + wordsPerPiece).join(''));
  }
  return pieces;
}

export async function* fromArray(pieces: readonly string[]): AsyncIterable<string> {
  for (const piece of pieces) yield piece;
}
