// The Slack adapter's rows of the settings table (index.ts); PORT, CHATBRIDGE_ADMINS and
// CHATBRIDGE_MAX_UPLOAD_BYTES are start's rows it reads too. adapters/slack/config.ts gets them
// parsed and checks how they go together.
import type { Setting } from './types.js';

export const SLACK_SETTINGS = [
  {
    name: 'SLACK_BOT_TOKEN',
    type: 'secret',
    use: ['slack'],
    help: 'One workspace: the bot token (`xoxb-…`); see [slack.md](slack.md)',
    pattern: /^xoxb-/,
    rule: 'must be a bot token starting with xoxb-',
  },
  {
    name: 'SLACK_APP_TOKEN',
    type: 'secret',
    use: ['slack'],
    help: 'Socket Mode: the app-level token (`xapp-…`)',
    pattern: /^xapp-/,
    rule: 'must be an app-level token starting with xapp-',
  },
  {
    name: 'SLACK_SIGNING_SECRET',
    type: 'secret',
    use: ['slack'],
    help: 'HTTP mode (and OAuth installs): the signing secret of requests from Slack',
  },
  {
    name: 'SLACK_API_URL',
    type: 'url',
    use: ['slack'],
    help: 'The Web API base (GovSlack, a test fake)',
    default: 'https://slack.com/api/',
    rule: 'must be an http(s) address, like https://slack.com/api/',
  },
  {
    name: 'SLACK_CLIENT_ID',
    type: 'text',
    use: ['slack'],
    help: 'Many workspaces installed through OAuth: the app’s client id; see [slack.md](slack.md#many-workspaces-oauth-installs)',
  },
  {
    name: 'SLACK_CLIENT_SECRET',
    type: 'secret',
    use: ['slack'],
    help: 'OAuth installs: the app’s client secret',
  },
  {
    name: 'SLACK_STATE_SECRET',
    type: 'secret',
    use: ['slack'],
    help: 'OAuth installs: signs the install state',
  },
  {
    name: 'CHATBRIDGE_SECRET_KEY',
    type: 'secret',
    use: ['slack'],
    help: 'OAuth installs: 32 bytes (base64 or hex) the stored bot tokens are encrypted with',
  },
] as const satisfies readonly Setting[];
