// HTTP/1.1 chunked transfer coding, decoded in place: the payload bytes of every frame in a
// network read are moved to the front of that read's buffer, so a read of a thousand small
// frames costs one copy per frame and no allocation, and the caller decodes them as one piece.
// A frame may be cut anywhere by the network; the state carries over to the next read.

/** Where the decoder is in the frame grammar (RFC 9112 §7.1). */
const enum At {
  Size,
  Extension,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerLineStart,
  TrailerLine,
  TrailerLf,
  EndLf,
  Done,
}

/** The body is not valid chunked coding; `rule` says which rule it broke. */
export class ChunkedError extends Error {
  /** Payload bytes of the failing read already moved to its front (they are good text). */
  payload = 0;

  constructor(readonly rule: string) {
    super(`chunked body: ${rule}`);
  }
}

/** A frame size above this is an attack or a broken server, not an answer. */
const MAX_FRAME_BYTES = 2 ** 40;
/** Hex digits of a frame size (leading zeros included) before we call it malformed. */
const MAX_SIZE_DIGITS = 16;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x57;
  return -1;
}

export class ChunkedDecoder {
  private at = At.Size;
  private size = 0;
  private digits = 0;
  private remaining = 0;

  /** True once the last frame and the trailer section have been read. */
  get done(): boolean {
    return this.at === At.Done;
  }

  /**
   * Decodes `bytes` in place and returns how many payload bytes now sit at its front, plus how
   * many input bytes were consumed (fewer than `bytes.length` only when the body ended inside
   * this read and something followed it). Throws ChunkedError on malformed framing.
   */
  decode(bytes: Uint8Array): { payload: number; consumed: number } {
    const end = bytes.length;
    let out = 0;
    let i = 0;
    try {
      while (i < end) {
        if (this.at === At.Data) {
          const take = Math.min(this.remaining, end - i);
          if (out !== i) bytes.copyWithin(out, i, i + take);
          out += take;
          i += take;
          this.remaining -= take;
          if (this.remaining > 0) continue;
          i = this.nextFrameFast(bytes, i);
          continue;
        }
        if (this.at === At.Done) return { payload: out, consumed: i };
        this.step(bytes[i]!);
        i++;
      }
    } catch (error) {
      if (error instanceof ChunkedError) error.payload = out;
      throw error;
    }
    return { payload: out, consumed: i };
  }

  /**
   * After a frame's data: reads "\r\n<hex>\r\n" in one go when it is all in this read (the
   * common case) and stays in Data for the next frame; otherwise hands over to `step`.
   */
  private nextFrameFast(bytes: Uint8Array, from: number): number {
    this.at = At.DataCr;
    const end = bytes.length;
    if (from + 4 >= end || bytes[from] !== 0x0d || bytes[from + 1] !== 0x0a) return from;
    let at = from + 2;
    let size = 0;
    const first = at;
    for (; at < end; at++) {
      const value = hexValue(bytes[at]!);
      if (value < 0) break;
      size = size * 16 + value;
    }
    const digits = at - first;
    if (digits === 0 || digits > MAX_SIZE_DIGITS || size === 0 || size > MAX_FRAME_BYTES) {
      return from; // the last frame, an extension or something odd: the careful path decides
    }
    if (at + 1 >= end || bytes[at] !== 0x0d || bytes[at + 1] !== 0x0a) return from;
    this.remaining = size;
    this.at = At.Data;
    return at + 2;
  }

  /** One byte through the grammar, for everything outside frame data. */
  private step(byte: number): void {
    switch (this.at) {
      case At.Size: {
        const value = hexValue(byte);
        if (value >= 0) {
          this.size = this.size * 16 + value;
          if (++this.digits > MAX_SIZE_DIGITS || this.size > MAX_FRAME_BYTES) {
            throw new ChunkedError('frame size too large');
          }
          return;
        }
        if (this.digits === 0) throw new ChunkedError('frame size must start with a hex digit');
        if (byte === 0x0d) this.at = At.SizeLf;
        else if (byte === 0x0a) throw new ChunkedError('frame size line must end with CRLF');
        else if (byte === 0x3b || byte === 0x20 || byte === 0x09) this.at = At.Extension;
        else throw new ChunkedError('frame size must be hex digits');
        return;
      }
      case At.Extension:
        // Extensions (";name=value") carry nothing we use; skip to the end of the line.
        if (byte === 0x0d) this.at = At.SizeLf;
        else if (byte === 0x0a) throw new ChunkedError('frame size line must end with CRLF');
        return;
      case At.SizeLf:
        if (byte !== 0x0a) throw new ChunkedError('frame size line must end with CRLF');
        if (this.size === 0) this.at = At.TrailerLineStart;
        else {
          this.remaining = this.size;
          this.at = At.Data;
        }
        this.size = 0;
        this.digits = 0;
        return;
      case At.DataCr:
        if (byte !== 0x0d) throw new ChunkedError('frame data must end with CRLF');
        this.at = At.DataLf;
        return;
      case At.DataLf:
        if (byte !== 0x0a) throw new ChunkedError('frame data must end with CRLF');
        this.at = At.Size;
        return;
      case At.TrailerLineStart:
        // An empty line ends the body; any other line is a trailer field, skipped.
        if (byte === 0x0a) throw new ChunkedError('body must end with CRLF');
        this.at = byte === 0x0d ? At.EndLf : At.TrailerLine;
        return;
      case At.TrailerLine:
        // A bare LF would otherwise be skipped as field text and the body never end.
        if (byte === 0x0d) this.at = At.TrailerLf;
        else if (byte === 0x0a) throw new ChunkedError('trailer line must end with CRLF');
        return;
      case At.TrailerLf:
        if (byte !== 0x0a) throw new ChunkedError('trailer line must end with CRLF');
        this.at = At.TrailerLineStart;
        return;
      case At.EndLf:
        if (byte !== 0x0a) throw new ChunkedError('body must end with CRLF');
        this.at = At.Done;
        return;
      default:
        return;
    }
  }
}
