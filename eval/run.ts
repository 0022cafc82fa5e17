// `npm run eval`: how well the local service answers real documentation questions, beside the
// floor of a plain FTS5 search computed in the same run (issues #12, #20). Extractive mode,
// offline, about a minute. Dev sets (tune on them): A-dev, A-dev-files, CJK-dev, C-dev; test
// sets (report only): A-test, B, C-test.
//
//   npm run eval                       the tables and targets of every set
//   npm run eval -- --set dev          only the dev split (the one to tune on); --set test: the rest
//   npm run eval -- --verbose          also every question, its answer and why it failed
//   npm run eval -- --failures         only the ones not answered or with a bad ending
//   npm run eval -- --show <id> ...    only these questions (an id, or the start of ids)
//   npm run eval -- --json <file>      also every outcome as JSON (to compare two runs)
//   npm run eval -- --baseline <file>  which questions changed since that --json file
//   npm run eval -- --check            exit 1 when a target of issue #20 is missed
//   npm run eval -- --embeddings URL --embeddings-model NAME
//                                      with semantic retrieval (an OpenAI-compatible endpoint)
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EvalService, type Asked } from './ask.js';
import { readCorpusB, readQuestionsB, type QuestionB } from './data-b.js';
import { readCorpusC, readQuestionsC } from './data-c.js';
import { readCorpusCjk, readQuestionsCjk } from './data-cjk.js';
import { FILE_FORMATS, type FileFormat, judgeableIn, readCorpusAs } from './data-files.js';
import {
  readCorpus,
  readQaPairs,
  readQuestions,
  readUnanswerable,
  SETS,
  setsNamed,
  type CorpusFile,
  type SetName,
} from './data.js';
import { FLOOR_TOP, FloorIndex, isCjk } from './floor.js';
import {
  compareWith,
  describe,
  kindTable,
  problemTable,
  type Outcome,
  type RowKind,
} from './report.js';
import { hasFact, isNotFound, normalizeForEndings, problemsOf, proseWords } from './score.js';
import { targetRows, targetsTable } from './targets.js';

const { values } = parseArgs({
  options: {
    verbose: { type: 'boolean', default: false },
    failures: { type: 'boolean', default: false },
    show: { type: 'string', multiple: true },
    json: { type: 'string' },
    baseline: { type: 'string' },
    check: { type: 'boolean', default: false },
    set: { type: 'string', multiple: true },
    embeddings: { type: 'string' },
    'embeddings-model': { type: 'string' },
  },
  allowPositionals: true,
});

type Chatbot = 'docs' | 'qa' | 'b' | 'cjk' | 'c' | FileFormat;

/**
 * Which service (which SQLite file) a chatbot lives in. A word's rarity is counted over every
 * chatbot of a service, so the sets added later search their own file and leave the figures of
 * A and B as they were measured before them.
 */
const SERVICE_OF: Record<Chatbot, 'main' | 'files' | 'cjk' | 'c'> = {
  docs: 'main',
  qa: 'main',
  b: 'main',
  cjk: 'cjk',
  c: 'c',
  pdf: 'files',
  docx: 'files',
  html: 'files',
  text: 'files',
};

interface Asking {
  id: string;
  set: SetName;
  kind: RowKind;
  question: string;
  first?: string;
  file: string;
  format: string;
  /** Every document that answers: file first. */
  files: string[];
  keyFacts: string[];
  wrongIf: string[];
  chatbot: Chatbot;
  /** A question no source answers: the answer must say it could not find it. */
  unanswerable?: boolean;
}

/** A chatbot's sources as the floor and the bad-ending check see them. */
interface Ground {
  floor: FloorIndex;
  /** The trigram index CJK questions search (issue #20). */
  cjkFloor: FloorIndex;
  text: string;
}

function groundOf(docs: Array<{ doc: string; text: string }>): Ground {
  const floor = new FloorIndex('porter');
  const cjkFloor = new FloorIndex('trigram');
  for (const { doc, text } of docs) {
    floor.add(doc, text);
    cjkFloor.add(doc, text);
  }
  return { floor, cjkFloor, text: normalizeForEndings(docs.map((d) => d.text).join('\n\n')) };
}

function judge(
  asking: Asking,
  asked: Asked,
  firstAnswer: string | undefined,
  ground: Ground,
): Outcome {
  const facts = asking.keyFacts.map((f) => hasFact(asked.answer, f));
  const notFound = isNotFound(asked.answer);
  const wrong = asking.wrongIf.filter((w) => hasFact(asked.answer, w));
  const cjk = isCjk(asking.question);
  // The floor sees what a plain search would be given: for a follow-up, both questions.
  const query = asking.first ? `${asking.first} ${asking.question}` : asking.question;
  const hits = (cjk ? ground.cjkFloor : ground.floor).search(query, FLOOR_TOP);
  const holds = (passage: string) =>
    asking.keyFacts.every((f) => hasFact(passage, f)) &&
    !asking.wrongIf.some((w) => hasFact(passage, w));
  const top = hits[0];
  const answerable = !asking.unanswerable;
  return {
    id: asking.id,
    set: asking.set,
    kind: asking.kind,
    question: asking.question,
    ...(asking.first ? { first: { question: asking.first, answer: firstAnswer ?? '' } } : {}),
    file: asking.file,
    format: asking.format,
    cjk,
    unanswerable: !answerable,
    keyFacts: asking.keyFacts,
    answer: asked.answer,
    citedDocs: asked.citedDocs,
    rightFile: asking.files.includes(asked.citedDocs[0] ?? ''),
    facts,
    factsCited:
      answerable && asking.keyFacts.every((f) => asked.citedPassages.some((p) => hasFact(p, f))),
    notFound,
    wrong,
    // A question no source answers is answered well only by saying so.
    answered: answerable ? facts.every(Boolean) && !notFound && wrong.length === 0 : notFound,
    problems: problemsOf(asked.answer, ground.text),
    words: proseWords(asked.answer),
    floor: {
      doc: top?.doc ?? '',
      passage: top?.passage ?? '',
      rightFile: answerable && asking.files.includes(top?.doc ?? ''),
      answered: answerable && top !== undefined && holds(top.passage),
      top3: answerable && hits.some((h) => holds(h.passage)),
    },
    ms: asked.ms,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const corpus: CorpusFile[] = readCorpus();
  const questions = readQuestions(corpus);
  const pairs = readQaPairs();
  const unanswerable = readUnanswerable();
  const uploadsB = await readCorpusB();
  const questionsB = readQuestionsB(uploadsB);
  const uploadsCjk = await readCorpusCjk();
  const questionsCjk = readQuestionsCjk(uploadsCjk);
  const uploadsC = await readCorpusC();
  const questionsC = readQuestionsC(uploadsC);
  const formatOf = new Map(
    [...uploadsB, ...uploadsCjk, ...uploadsC].map((u) => [u.path, u.format]),
  );
  const asFiles = await Promise.all(FILE_FORMATS.map((format) => readCorpusAs(corpus, format)));
  let unjudgeable = 0;
  // Set B's form of question (also CJK-dev's and C's), asked of the chatbot holding its uploads.
  const uploadAsking = (q: QuestionB, set: SetName, chatbot: 'b' | 'cjk' | 'c'): Asking => ({
    id: q.id,
    set,
    kind: q.kind,
    question: q.question,
    ...(q.first ? { first: q.first } : {}),
    file: q.file ?? '',
    format: q.file === undefined ? '' : (formatOf.get(q.file) ?? ''),
    files: q.file === undefined ? [''] : [q.file, ...(q.alsoIn ?? [])],
    keyFacts: q.keyFacts ?? [],
    wrongIf: q.wrongIf ?? [],
    chatbot,
    ...(q.kind === 'unanswerable' ? { unanswerable: true } : {}),
  });

  const askings: Asking[] = [
    ...questions.map((q) => ({
      id: q.id,
      set: `A-${q.split}` as const,
      kind: q.kind,
      question: q.question,
      ...(q.first ? { first: q.first } : {}),
      file: q.file,
      format: 'markdown',
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
        format: 'qa',
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
        format: 'qa',
        files: [''],
        keyFacts: [],
        wrongIf: [],
        chatbot: 'qa' as const,
        unanswerable: true,
      })),
    // Questions about set A's packages that its documents do not answer.
    ...unanswerable.map((q) => ({
      id: q.id,
      set: `A-${q.split}` as const,
      kind: 'unanswerable' as const,
      question: q.question,
      file: '',
      format: 'markdown',
      files: [''],
      keyFacts: [],
      wrongIf: [],
      chatbot: 'docs' as const,
      unanswerable: true,
    })),
    // A-dev again, over the documents uploaded as PDF, Word, HTML and text files.
    ...asFiles.flatMap((files) =>
      questions
        .filter((q) => q.split === 'dev')
        .filter((q) => judgeableIn(q, files) || (unjudgeable++, false))
        .map((q) => ({
          id: `${q.id}-${files.format}`,
          set: 'A-dev-files' as const,
          kind: q.kind,
          question: q.question,
          ...(q.first ? { first: q.first } : {}),
          file: q.file,
          format: files.format,
          files: [q.file, ...(q.alsoIn ?? [])],
          keyFacts: q.keyFacts,
          wrongIf: q.wrongIf ?? [],
          chatbot: files.format,
        })),
    ),
    ...questionsB.map((q) => uploadAsking(q, 'B', 'b')),
    ...questionsCjk.map((q) => uploadAsking(q, 'CJK-dev', 'cjk')),
    ...questionsC.map((q) => uploadAsking(q, `C-${q.split}`, 'c')),
  ];
  const shown = values.show ?? [];
  const sets: SetName[] = values.set ? [...new Set(values.set.flatMap(setsNamed))] : [...SETS];
  const selected = askings.filter(
    (a) => sets.includes(a.set) && (shown.length === 0 || shown.some((s) => a.id.startsWith(s))),
  );
  if (selected.length === 0) {
    throw new Error(`--show: no question id starts with ${shown.join(', ')}`);
  }

  const grounds: Record<Asking['chatbot'], Ground> = {
    docs: groundOf(corpus.map((f) => ({ doc: f.path, text: f.text }))),
    qa: groundOf(pairs.map((p) => ({ doc: `qa:${p.id}`, text: `${p.question}\n\n${p.answer}` }))),
    b: groundOf(uploadsB.map((u) => ({ doc: u.path, text: u.text }))),
    cjk: groundOf(uploadsCjk.map((u) => ({ doc: u.path, text: u.text }))),
    c: groundOf(uploadsC.map((u) => ({ doc: u.path, text: u.text }))),
    ...(Object.fromEntries(
      asFiles.map((files) => [
        files.format,
        groundOf(corpus.map((f) => ({ doc: f.path, text: files.byCorpusPath.get(f.path)!.text }))),
      ]),
    ) as Record<FileFormat, Ground>),
  };

  const embeddings = values.embeddings;
  if (embeddings !== undefined && values['embeddings-model'] === undefined)
    throw new Error('--embeddings-model: is required with --embeddings');
  const withEmbeddings =
    embeddings === undefined ? undefined : { url: embeddings, model: values['embeddings-model']! };
  if (embeddings !== undefined) console.log(`With embeddings: ${embeddings}\n`);
  const needs = [...new Set(selected.map((a) => a.chatbot))];
  const groups = [...new Set(needs.map((chatbot) => SERVICE_OF[chatbot]))];
  const services = new Map(
    await Promise.all(
      groups.map(async (group) => [group, await EvalService.start(withEmbeddings)] as const),
    ),
  );
  const serviceOf = (chatbot: Chatbot) => services.get(SERVICE_OF[chatbot])!;
  const create: Record<Chatbot, () => Promise<string>> = {
    docs: () => serviceOf('docs').docsChatbot(corpus),
    qa: () => serviceOf('qa').qaChatbot(pairs),
    b: () =>
      serviceOf('b').uploadsChatbot(
        'Eval: other documentation',
        uploadsB.map((u) => ({ doc: u.path, bytes: u.bytes, contentType: u.contentType })),
      ),
    cjk: () =>
      serviceOf('cjk').uploadsChatbot(
        'Eval: Chinese and Japanese documentation',
        uploadsCjk.map((u) => ({ doc: u.path, bytes: u.bytes, contentType: u.contentType })),
      ),
    c: () =>
      serviceOf('c').uploadsChatbot(
        'Eval: documentation of other packages, set C',
        uploadsC.map((u) => ({ doc: u.path, bytes: u.bytes, contentType: u.contentType })),
      ),
    ...(Object.fromEntries(
      asFiles.map((files) => [
        files.format,
        () =>
          serviceOf(files.format).uploadsChatbot(
            `Eval: documentation as ${files.format} files`,
            corpus.map((f) => {
              const upload = files.byCorpusPath.get(f.path)!;
              const fileName = upload.path.replace('/', '-');
              return {
                doc: f.path,
                fileName,
                bytes: upload.bytes,
                contentType: upload.contentType,
              };
            }),
          ),
      ]),
    ) as Record<FileFormat, () => Promise<string>>),
  };
  const outcomes: Outcome[] = [];
  try {
    const bots: Partial<Record<Chatbot, string>> = {};
    // One service's chatbots one after another (their chunks' order as it always was), the
    // services side by side.
    await Promise.all(
      groups.map(async (group) => {
        for (const chatbot of needs.filter((c) => SERVICE_OF[c] === group))
          bots[chatbot] = await create[chatbot]();
        await services.get(group)!.settled(); // every chunk embedded before the first question
      }),
    );
    const ingested = performance.now();
    for (const asking of selected) {
      const service = serviceOf(asking.chatbot);
      const session = await service.newSession(bots[asking.chatbot]!);
      const firstAnswer = asking.first
        ? (await service.ask(session, asking.first)).answer
        : undefined;
      const asked = await service.ask(session, asking.question);
      outcomes.push(judge(asking, asked, firstAnswer, grounds[asking.chatbot]));
    }
    const words = corpus.reduce((n, f) => n + f.text.split(/\s+/).filter(Boolean).length, 0);
    const formats = [...new Set(uploadsB.map((u) => u.format))].sort().join(', ');
    const formatsC = [...new Set(uploadsC.map((u) => u.format))].sort().join(', ');
    console.log(
      `chatbridge eval: set A ${corpus.length} markdown files (${Math.round(words / 1000)}k words), ` +
        `${questions.length} questions, ${pairs.length} Q&A pairs; set B ${uploadsB.length} files ` +
        `(${formats}), ${questionsB.length} questions; set CJK-dev ${uploadsCjk.length} files, ` +
        `${questionsCjk.length} questions; set C ${uploadsC.length} files (${formatsC}), ` +
        `${questionsC.length} questions (C-dev and C-test); set A-dev-files: A-dev over A as ` +
        `${FILE_FORMATS.join(', ')} files (${unjudgeable} not judgeable there: a key fact ` +
        `written with markup); extractive answers (no LLM). ` +
        `Ingest ${((ingested - started) / 1000).toFixed(1)} s, asking ${((performance.now() - ingested) / 1000).toFixed(1)} s.`,
    );
  } finally {
    for (const service of services.values()) await service.close();
    for (const ground of Object.values(grounds)) {
      ground.floor.close();
      ground.cjkFloor.close();
    }
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
    if (own.length > 0) console.log(`\nSet ${set}:\n${kindTable(own)}`);
  }
  console.log(`\n${problemTable(outcomes)}\n`);
  if (shown.length === 0) console.log(`${targetsTable(outcomes)}\n`);
  console.log(
    [
      'answered = every key fact in the answer and no "could not find" (for a question no source answers: declined);',
      'fact + right file = answered and the first citation is the right file; floor = the top 150-word passage of a',
      'plain FTS5 BM25 search (trigram index for CJK questions) judged the same way; floor top 3 = one of its top 3',
      'passages holds every key fact; median words = answers other than "could not find", words outside code blocks.',
    ].join('\n'),
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
