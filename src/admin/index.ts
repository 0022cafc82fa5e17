// The admin commands, as every surface uses them.
export type * from './types.js';
export { adminCommands, adminNouns, findCommand } from './table.js';
export { runAdminCommand, runAdminLine, runAdminTokens } from './run.js';
export { parseCommandLine } from './tokenize.js';
export { renderBlock, renderText, hasError } from './render.js';
export { suggest, type SuggestOptions } from './suggest.js';
export { usage, commandHelp } from './usage.js';
export { availableOn, commandName } from './args.js';
export { AdminInputError, AdminRefusal } from './errors.js';
export { currentChatbot } from './resolve.js';
export { DEFAULT_MAX_UPLOAD_BYTES, localFileReader, localFileWriter } from './local-file.js';
