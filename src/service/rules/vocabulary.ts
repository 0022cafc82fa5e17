// The interface's closed lists and documented bounds: what the rules check and the types name.
export const VISIBILITIES = ['private', 'public', 'hybrid'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const AGENT_TYPES = [
  'user-facing',
  'background',
  'human-escalation',
  'pre-canned',
  'spam-defense',
] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

/** Documented bounds of what we send. Responses may lie outside them (field notes: bias -10). */
export const LIMITS = {
  rateLimitCount: { min: 1, max: 100 },
  rateLimitWindowSeconds: { min: 1, max: 360 },
  unitInterval: { min: 0, max: 1 },
} as const;
