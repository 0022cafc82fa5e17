// What can go wrong below HTTP on the stream connection, as codes and one error type that
// src/service/transport-error.ts turns into ServiceErrors.

/** The connect timeout's code; `neverReachedServer` treats it like a refused connect. */
export const CONNECT_TIMEOUT_CODE = 'CHATBRIDGE_CONNECT_TIMEOUT';
/** The service closed the connection before the response ended. */
export const CLOSED_EARLY_CODE = 'CHATBRIDGE_CLOSED_EARLY';

/** A call on a client after its close(). */
export const CLIENT_CLOSED_CODE = 'CHATBRIDGE_CLIENT_CLOSED';

export function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The response broke HTTP/1.1's rules; `message` names the rule. */
export class H1ProtocolError extends Error {}
