// Multipart bodies (messages with files) as bytes before discord.js's request function sends
// them. @discordjs/rest hands a FormData to its own undici (v6), which then runs on the global
// dispatcher; when the project's undici (v7) installed that dispatcher first, the two versions
// disagree about FormData bodies and the upload fails ("action is not a function"). Plain bytes
// and their content type every undici accepts (adapters/shared/outbound.ts).
import { DefaultRestOptions, type RESTOptions } from 'discord.js';
import { encodeForm } from '../shared/outbound.js';

type MakeRequest = RESTOptions['makeRequest'];

export function withEncodedForms(send: MakeRequest = DefaultRestOptions.makeRequest): MakeRequest {
  return async (url, init) => {
    if (!(init.body instanceof FormData)) return send(url, init);
    const form = await encodeForm(
      init.body,
      init.headers as ConstructorParameters<typeof Headers>[0],
    );
    return send(url, { ...init, ...form });
  };
}
