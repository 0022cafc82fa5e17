// What can go wrong below HTTP on the stream connection, as codes and one error type that
// src/service/transport-error.ts turns into ServiceErrors.

/** The connect timeout's code; `neverReachedServer` treats it like a refused connect. */
export const CONNECT_TIMEOUT_CODE = 'CHATBRIDGE_CONNECT_TIMEOUT';
/** The service closed the connection before the response ended. */
export const CLOSED_EARLY_CODE = 'CHATBRIDGE_CLOSED_EARLY';

/**
 * A reused connection closed cleanly before any byte of the response: the server timed it out
 * as idle while the request was on its way, so it never took the request, which may be sent
 * again on a new connection (the rule Go's HTTP client follows).
 */
export const CLOSED_IDLE_CODE = 'CHATBRIDGE_CLOSED_IDLE';

export function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The response broke HTTP/1.1's rules; `message` names the rule. */
export class H1ProtocolError extends Error {}
