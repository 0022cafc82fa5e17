// Why a file or page gave no text: each a coded error the routes turn into a status and a
// data source's error reason.
import { CodedError, ErrorCode } from '../../errors.js';

/** Thrown by text extraction for a file type it does not read (the route answers 415). */
export class UnsupportedFileTypeError extends CodedError {
  constructor(
    readonly fileName: string,
    readonly accepted: readonly string[],
  ) {
    super(
      ErrorCode.FileTypeUnsupported,
      `file type not allowed: "${fileName}"; accepted: ${accepted.join(' ')}`,
    );
  }
}

/**
 * A file refused by a limit of text extraction (text too long, a .docx inflating too far, too
 * slow, too much memory): the file is not damaged, it asks for more than is allowed.
 */
export class ExtractionLimitError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.ExtractionLimit, message);
  }

  static textTooLong(maxTextBytes: number): ExtractionLimitError {
    return new ExtractionLimitError(`the extracted text would exceed ${maxTextBytes} bytes`);
  }
}

/** Why a URL could not be read; becomes the data source's error reason. */
export class FetchFailedError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.FetchFailed, message);
  }
}
