// The assistant pane's pure parts: a thread title from its first question, and settings that
// fall back field by field from the channel to the workspace to the defaults.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ASSISTANT_GREETING,
  DEFAULT_ASSISTANT_PROMPTS,
  effectiveAssistantSettings,
  threadTitle,
} from '../../src/bridge/assistant.js';
import { memoryState } from './helpers/memory-state.js';

describe('threadTitle', () => {
  it('keeps a short question whole, with its whitespace folded', () => {
    expect(threadTitle('  How do\n refunds   work? ')).toBe('How do refunds work?');
    expect(threadTitle('   ')).toBe('');
  });

  it('cuts a long question at a word boundary, ending in an ellipsis within the bound', () => {
    const title = threadTitle('Please explain every single step of the onboarding checklist', 30);
    expect(title).toBe('Please explain every single…');
    expect([...title].length).toBeLessThanOrEqual(30);
  });

  it('cuts one very long word where it must, counting characters, not UTF-16 units', () => {
    const title = threadTitle('😀'.repeat(50), 10);
    expect(title).toBe(`${'😀'.repeat(9)}…`);
    expect([...title]).toHaveLength(10);
  });
});

describe('effectiveAssistantSettings', () => {
  it('takes each field from the channel, else the workspace, else the defaults', async () => {
    const { state } = memoryState();
    expect(await effectiveAssistantSettings(state, 'slack', 'T1', 'C1')).toEqual({
      greeting: DEFAULT_ASSISTANT_GREETING,
      prompts: [...DEFAULT_ASSISTANT_PROMPTS],
      greetingFrom: 'default',
      promptsFrom: 'default',
    });
    await state.assistantSettings.set('slack:T1', { greeting: 'Hello team', prompts: ['a'] });
    await state.assistantSettings.set('slack:T1:C1', { prompts: [] });
    expect(await effectiveAssistantSettings(state, 'slack', 'T1', 'C1')).toEqual({
      greeting: 'Hello team',
      prompts: [],
      greetingFrom: 'workspace',
      promptsFrom: 'channel',
    });
    expect(await effectiveAssistantSettings(state, 'slack', 'T1')).toMatchObject({
      prompts: ['a'],
      promptsFrom: 'workspace',
    });
    // Another workspace is untouched.
    expect(await effectiveAssistantSettings(state, 'slack', 'T2', 'C1')).toMatchObject({
      greetingFrom: 'default',
    });
  });
});
