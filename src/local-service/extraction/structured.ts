// JSON and CSV → readable text that keeps each value next to its key or column name, so a
// search for "price of the basic plan" finds "price: 10" beside "name: basic plan".

/** JSON text → indented "key: value" lines; top-level array items become paragraphs. */
export function jsonToText(source: string): string {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(value)) return value.map((item) => render(item, 0).join('\n')).join('\n\n');
  return render(value, 0).join('\n');
}

function scalar(value: unknown): string {
  return value === null ? 'null' : String(value);
}

function render(value: unknown, depth: number): string[] {
  const pad = '  '.repeat(depth);
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (item === null || typeof item !== 'object') return [`${pad}- ${scalar(item)}`];
      const [first = '', ...rest] = render(item, depth + 1);
      return [`${pad}- ${first.trimStart()}`, ...rest];
    });
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      if (item === null || typeof item !== 'object') return [`${pad}${key}: ${scalar(item)}`];
      return [`${pad}${key}:`, ...render(item, depth + 1)];
    });
  }
  return [`${pad}${scalar(value)}`];
}

/** Parses CSV (RFC 4180: quoted fields, doubled quotes, newlines inside quotes). */
export function parseCsv(source: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && source[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/** CSV → one paragraph per row, each cell as "column: value" (the first row names columns). */
export function csvToText(source: string): string {
  const [header, ...rows] = parseCsv(source);
  if (header === undefined) return '';
  if (rows.length === 0) return header.join(', ');
  return rows
    .map((row) =>
      row
        .map((cell, i) => [header[i]?.trim() || `column ${i + 1}`, cell.trim()] as const)
        .filter(([, cell]) => cell !== '')
        .map(([name, cell]) => `${name}: ${cell}`)
        .join('\n'),
    )
    .filter((paragraph) => paragraph !== '')
    .join('\n\n');
}
