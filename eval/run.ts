// `npm run eval`: how well the local service answers real documentation questions, beside the
// floor of a plain FTS5 search (issue #12). Extractive mode, offline, about a minute.
//
//   npm run eval                       the tables, for every set (A-dev, A-test)
//   npm run eval -- --set dev          only the dev split (the one to tune on); --set test: the rest
//   npm run eval -- --verbose          also every question, its answer and why it failed
//   npm run eval -- --failures         only the ones not answered or with a bad ending
//   npm run eval -- --show <id> ...    only these questions (an id, or the start of ids)
//   npm run eval -- --json <file>      also every outcome as JSON (to compare two runs)
//   npm run eval -- --baseline <file>  which questions changed since that --json file
//   npm run eval -- --check            exit 1 when a target of issue #12 is missed
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EvalService, type Asked } from './ask.js';
import {
  readCorpus,
  readQaPairs,
  readQuestions,
  SETS,
  setsNamed,
  type CorpusFile,
  type SetName,
} from './data.js';
import { FloorIndex } from './floor.js';
import {
  compareWith,
  describe,
  kindTable,
  problemTable,
  targetRows,
  targetsTable,
  type Outcome,
  type RowKind,
} from './report.js';
import { hasFact, isNotFound, normalizeForEndings, problemsOf } from './score.js';

const { values } = parseArgs({
  options: {
    verbose: { type: 'boolean', default: false },
    failures: { type: 'boolean', default: false },
    show: { type: 'string', multiple: true },
    json: { type: 'string' },
    baseline: { type: 'string' },
    check: { type: 'boolean', default: false },
    set: { type: 'string', multiple: true },
  },
  allowPositionals: true,
});

interface Asking {
  id: string;
  set: SetName;
  kind: RowKind;
  question: string;
  first?: string;
  file: string;
  /** Every document that answers: file first. */
  files: string[];
  keyFacts: string[];
  wrongIf: string[];
  chatbot: 'docs' | 'qa';
  /** A question no source answers: the answer must say it could not find it. */
  unanswerable?: boolean;
}

function judge(
  asking: Asking,
  asked: Asked,
  firstAnswer: string | undefined,
  floor: FloorIndex,
  corpusText: string,
): Outcome {
  const facts = asking.keyFacts.map((f) => hasFact(asked.answer, f));
  const notFound = isNotFound(asked.answer);
  const wrong = asking.wrongIf.filter((w) => hasFact(asked.answer, w));
  // A question no pair answers is answered well only by saying so (a sentence of a pair's
  // answer would answer something else).
  // The floor sees what a plain search would be given: for a follow-up, both questions.
  const hit = floor.search(asking.first ? `${asking.first} ${asking.question}` : asking.question);
  const passage = hit?.passage ?? '';
  return {
    id: asking.id,
    set: asking.set,
    kind: asking.kind,
    question: asking.question,
    ...(asking.first ? { first: { question: asking.first, answer: firstAnswer ?? '' } } : {}),
    file: asking.file,
    keyFacts: asking.keyFacts,
    answer: asked.answer,
    citedDocs: asked.citedDocs,
    rightFile: asking.files.includes(asked.citedDocs[0] ?? ''),
    facts,
    factsCited: asking.keyFacts.every((f) => asked.citedPassages.some((p) => hasFact(p, f))),
    notFound,
    wrong,
    answered: !asking.unanswerable
      ? facts.every(Boolean) && !notFound && wrong.length === 0
      : notFound,
    problems: problemsOf(asked.answer, corpusText),
    floor: {
      doc: hit?.doc ?? '',
      passage,
      rightFile: asking.files.includes(hit?.doc ?? ''),
      answered:
        !asking.unanswerable &&
        passage !== '' &&
        asking.keyFacts.every((f) => hasFact(passage, f)) &&
        !asking.wrongIf.some((w) => hasFact(passage, w)),
    },
    ms: asked.ms,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const corpus: CorpusFile[] = readCorpus();
  const questions = readQuestions(corpus);
  const pairs = readQaPairs();

  const askings: Asking[] = [
    ...questions.map((q) => ({
      id: q.id,
      set: `A-${q.split}` as const,
      kind: q.kind,
      question: q.question,
      ...(q.first ? { first: q.first } : {}),
      file: q.file,
      files: [q.file, ...(q.alsoIn ?? [])],
      keyFacts: q.keyFacts,
      wrongIf: q.wrongIf ?? [],
      chatbot: 'docs' as const,
    })),
    ...pairs.flatMap((p) =>
      (['exact', 'paraphrase'] as const).map((how) => ({
        id: `${p.id}-${how}`,
        set: `A-${p.split}` as const,
        kind: `qa-${how}` as RowKind,
        question: how === 'exact' ? p.question : p.paraphrase,
        file: `qa:${p.id}`,
        files: [`qa:${p.id}`],
        keyFacts: [p.keyFact],
        wrongIf: [],
        chatbot: 'qa' as const,
      })),
    ),
    // The documentation questions asked of the Q&A chatbot: no pair answers them.
    ...questions
      .filter((q) => q.first === undefined)
      .map((q) => ({
        id: `unrelated-${q.id}`,
        set: `A-${q.split}` as const,
        kind: 'qa-unrelated' as const,
        question: q.question,
        file: '',
        files: [''],
        keyFacts: [],
        wrongIf: [],
        chatbot: 'qa' as const,
        unanswerable: true,
      })),
  ];
  const shown = values.show ?? [];
  const sets: SetName[] = values.set ? [...new Set(values.set.flatMap(setsNamed))] : [...SETS];
  const selected = askings.filter(
    (a) => sets.includes(a.set) && (shown.length === 0 || shown.some((s) => a.id.startsWith(s))),
  );
  if (selected.length === 0)
    throw new Error(`--show: no question id starts with ${shown.join(', ')}`);

  const docsFloor = new FloorIndex();
  for (const file of corpus) docsFloor.add(file.path, file.text);
  const qaFloor = new FloorIndex();
  for (const pair of pairs) qaFloor.add(`qa:${pair.id}`, `${pair.question}\n\n${pair.answer}`);
  const docsText = normalizeForEndings(corpus.map((f) => f.text).join('\n\n'));
  const qaText = normalizeForEndings(pairs.map((p) => `${p.question}\n\n${p.answer}`).join('\n\n'));

  const service = await EvalService.start();
  const outcomes: Outcome[] = [];
  try {
    const docsBot = await service.docsChatbot(corpus);
    const qaBot = await service.qaChatbot(pairs);
    const ingested = performance.now();
    for (const asking of selected) {
      const docs = asking.chatbot === 'docs';
      const session = await service.newSession(docs ? docsBot : qaBot);
      const firstAnswer = asking.first
        ? (await service.ask(session, asking.first)).answer
        : undefined;
      const asked = await service.ask(session, asking.question);
      outcomes.push(
        judge(asking, asked, firstAnswer, docs ? docsFloor : qaFloor, docs ? docsText : qaText),
      );
    }
    const words = corpus.reduce((n, f) => n + f.text.split(/\s+/).filter(Boolean).length, 0);
    console.log(
      `chatbridge eval: ${corpus.length} documentation files (${Math.round(words / 1000)}k words), ` +
        `${questions.length} questions, ${pairs.length} Q&A pairs; extractive answers (no LLM). ` +
        `Ingest ${((ingested - started) / 1000).toFixed(1)} s, asking ${((performance.now() - ingested) / 1000).toFixed(1)} s.`,
    );
  } finally {
    await service.close();
    docsFloor.close();
    qaFloor.close();
  }

  const verbose = values.verbose || values.failures || shown.length > 0;
  if (verbose) {
    for (const o of outcomes) {
      if (values.failures && o.answered && o.problems.length === 0) continue;
      console.log(`${describe(o)}\n`);
    }
  }
  for (const set of sets) {
    const own = outcomes.filter((o) => o.set === set);
    if (own.length === 0) continue;
    console.log(`\nSet ${set}:\n${kindTable(own)}\n`);
  }
  console.log(`${problemTable(outcomes)}\n`);
  if (shown.length === 0) console.log(`${targetsTable(outcomes)}\n`);
  console.log(
    'answered = every key fact in the answer and no "could not find"; floor = the top 150-word passage of a plain FTS5 BM25 search, judged the same way.',
  );
  if (values.baseline) {
    const before = JSON.parse(readFileSync(values.baseline, 'utf8')) as Outcome[];
    console.log(`\n${compareWith(before, outcomes)}`);
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify(outcomes, null, 2)}\n`);
  if (values.check && shown.length === 0 && targetRows(outcomes).some((r) => r.ok === false)) {
    process.exitCode = 1;
  }
}

await main();
