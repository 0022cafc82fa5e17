// Block Kit's documented limits (docs.slack.dev/reference/block-kit: blocks, block elements,
// composition objects, views), written here from the documentation and not taken from the
// adapter, so a wrong limit in the adapter is caught rather than copied.

export const LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  blockId: 255,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  contextElements: 10,
  actionsElements: 25,
  headerText: 150,
  markdownTotal: 12_000,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
  inputLabel: 2000,
  inputHint: 2000,
  plainTextInputMax: 3000,
  placeholder: 150,
  viewTitle: 24,
  viewSubmit: 24,
  viewClose: 24,
  privateMetadata: 3000,
  callbackId: 255,
  markdownText: 12_000,
  text: 40_000,
} as const;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (v: unknown): string | undefined =>
  isNode(v) && typeof v.text === 'string' ? v.text : undefined;

function over(problems: string[], where: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) {
    problems.push(`${where}: ${value.length} characters, Slack allows ${max}`);
  }
}

function element(problems: string[], where: string, el: unknown): void {
  if (!isNode(el)) return void problems.push(`${where}: not an object`);
  if (typeof el.action_id === 'string')
    over(problems, `${where}.action_id`, el.action_id, LIMITS.actionId);
  if (el.type === 'button') {
    over(problems, `${where}.text`, textOf(el.text), LIMITS.buttonText);
    if (typeof el.value === 'string')
      over(problems, `${where}.value`, el.value, LIMITS.buttonValue);
  }
  if (el.type === 'feedback_buttons') {
    for (const side of ['positive_button', 'negative_button']) {
      const button = el[side];
      if (!isNode(button)) problems.push(`${where}.${side}: missing`);
      else {
        over(problems, `${where}.${side}.text`, textOf(button.text), LIMITS.buttonText);
        if (typeof button.value !== 'string' || button.value === '')
          problems.push(`${where}.${side}.value: missing`);
        else over(problems, `${where}.${side}.value`, button.value, LIMITS.buttonValue);
      }
    }
  }
  if (
    el.type === 'plain_text_input' &&
    typeof el.max_length === 'number' &&
    el.max_length > LIMITS.plainTextInputMax
  )
    problems.push(
      `${where}.max_length: ${el.max_length}, Slack allows ${LIMITS.plainTextInputMax}`,
    );
  over(problems, `${where}.placeholder`, textOf(el.placeholder), LIMITS.placeholder);
}

/** Problems of one list of blocks (a message's, or a modal's with `modal`). */
export function checkBlocks(blocks: unknown, where: string, modal = false): string[] {
  const problems: string[] = [];
  if (!Array.isArray(blocks)) return [`${where}: blocks is not a list`];
  const max = modal ? LIMITS.modalBlocks : LIMITS.messageBlocks;
  if (blocks.length > max) problems.push(`${where}: ${blocks.length} blocks, Slack allows ${max}`);
  let markdown = 0;
  blocks.forEach((block, i) => {
    const at = `${where}[${i}]`;
    if (!isNode(block) || typeof block.type !== 'string')
      return void problems.push(`${at}: no type`);
    if (typeof block.block_id === 'string')
      over(problems, `${at}.block_id`, block.block_id, LIMITS.blockId);
    switch (block.type) {
      case 'section': {
        const fields = block.fields;
        if (block.text === undefined && fields === undefined)
          problems.push(`${at}: neither text nor fields`);
        over(problems, `${at}.text`, textOf(block.text), LIMITS.sectionText);
        if (Array.isArray(fields)) {
          if (fields.length > LIMITS.sectionFields)
            problems.push(`${at}.fields: ${fields.length}, Slack allows ${LIMITS.sectionFields}`);
          fields.forEach((f, j) =>
            over(problems, `${at}.fields[${j}]`, textOf(f), LIMITS.fieldText),
          );
        }
        if (block.accessory !== undefined) element(problems, `${at}.accessory`, block.accessory);
        break;
      }
      case 'markdown':
        if (typeof block.text !== 'string') problems.push(`${at}.text: missing`);
        else markdown += block.text.length;
        break;
      case 'context':
      case 'context_actions':
      case 'actions': {
        const elements = block.elements;
        const limit = block.type === 'actions' ? LIMITS.actionsElements : LIMITS.contextElements;
        if (!Array.isArray(elements) || elements.length === 0)
          problems.push(`${at}.elements: none`);
        else {
          if (elements.length > limit)
            problems.push(`${at}.elements: ${elements.length}, Slack allows ${limit}`);
          elements.forEach((el, j) => {
            if (block.type === 'context')
              over(problems, `${at}.elements[${j}]`, textOf(el), LIMITS.sectionText);
            else element(problems, `${at}.elements[${j}]`, el);
          });
        }
        break;
      }
      case 'header':
        over(problems, `${at}.text`, textOf(block.text), LIMITS.headerText);
        break;
      case 'input':
        over(problems, `${at}.label`, textOf(block.label), LIMITS.inputLabel);
        over(problems, `${at}.hint`, textOf(block.hint), LIMITS.inputHint);
        element(problems, `${at}.element`, block.element);
        break;
      case 'divider':
      case 'rich_text':
      case 'image':
      case 'file':
        break;
      default:
        problems.push(`${at}: unknown block type ${block.type}`);
    }
  });
  if (markdown > LIMITS.markdownTotal) {
    problems.push(
      `${where}: markdown blocks hold ${markdown} characters, Slack allows ${LIMITS.markdownTotal}`,
    );
  }
  return problems;
}

/** Problems of a modal view (views.open). */
export function checkView(view: unknown): string[] {
  if (!isNode(view)) return ['view: not an object'];
  const problems: string[] = [];
  if (view.type !== 'modal') problems.push(`view.type: ${String(view.type)}`);
  const title = textOf(view.title);
  if (!title) problems.push('view.title: missing');
  over(problems, 'view.title', title, LIMITS.viewTitle);
  over(problems, 'view.submit', textOf(view.submit), LIMITS.viewSubmit);
  over(problems, 'view.close', textOf(view.close), LIMITS.viewClose);
  if (typeof view.private_metadata === 'string')
    over(problems, 'view.private_metadata', view.private_metadata, LIMITS.privateMetadata);
  if (typeof view.callback_id === 'string')
    over(problems, 'view.callback_id', view.callback_id, LIMITS.callbackId);
  problems.push(...checkBlocks(view.blocks, 'view.blocks', true));
  return problems;
}
