// A small Chinese and Japanese corpus with questions, written for this project (no eval set's
// documents or questions): two manuals in the shape real ones take (headings, prose without
// spaces between words, tables, code, Latin option names inside CJK sentences), beside an
// English one. cjk.test.ts asks every question; tune CJK retrieval on it, never on eval set B.
export interface CjkQuestion {
  question: string;
  /** The source that answers, or undefined: no source does, the answer must decline. */
  source?: string;
  /** Every one must be in the answer. */
  facts: string[];
}

export const FERRY_ZH = `# Ferry 使用指南

Ferry 是一个为小团队设计的轻量级消息队列。它把消息保存在磁盘上，并按照写入的顺序投递给消费者。Ferry 用 Go 编写，只有一个可执行文件，不依赖任何外部数据库，也不需要单独的协调服务。

## 安装

Ferry 支持 Linux、macOS 和 Windows。在 Linux 和 macOS 上，可以用下面的命令安装：

\`\`\`sh
curl -fsSL https://ferry.example/install.sh | sh
\`\`\`

在 Windows 上，请从发布页面下载压缩包，解压后把 ferry.exe 放到 PATH 中的某个目录里。安装完成后，运行 \`ferry version\` 检查版本。

## 配置

Ferry 从当前目录下的 ferry.toml 读取配置。如果文件不存在，所有选项都使用默认值。修改配置后需要重新启动服务才能生效。

| 选项 | 默认值 | 说明 |
| --- | --- | --- |
| \`port\` | \`7420\` | 服务监听的端口。 |
| \`data_dir\` | \`./data\` | 保存消息的目录。 |
| \`retention\` | \`7d\` | 消息保留的时间，超过后自动删除。 |
| \`max_batch\` | \`500\` | 一次批量投递的最大消息数。 |

### 超时

投递超时默认为 30 秒。如果消费者在超时时间内没有确认消息，Ferry 会把这条消息重新投递给另一个消费者。可以用 \`ack_timeout\` 选项修改这个时间，最小值是 1 秒，最大值是 1 小时。

### 日志

Ferry 默认把日志写到标准错误输出。设置 \`log_format = "json"\` 以后，每一行日志都是一个 JSON 对象，方便日志系统收集。

## 发送消息

用官方的 Node.js 客户端发送消息：

\`\`\`js
const { connect } = require('ferry-client');
// 连接到本地的 Ferry 服务
const ferry = await connect('ferry://localhost:7420');
// 把一条消息发送到 orders 队列
await ferry.send('orders', { id: 42 });
\`\`\`

## 备份与恢复

备份数据目录之前，必须先停止 Ferry。在服务运行时复制数据目录，得到的备份可能不完整，恢复后会丢失最近的消息。恢复时，把备份的目录复制回 data_dir，然后重新启动服务即可。

## 常见问题

### 消息会丢失吗？

Ferry 在确认写入之前会调用 fsync，所以已经确认的消息在断电后也不会丢失。但是如果磁盘本身损坏，数据仍然可能丢失，因此建议定期备份。

### 一个队列支持多少个消费者？

每个队列最多可以有 64 个消费者同时连接。超过这个数量的连接会被拒绝，并返回错误码 E_TOO_MANY。
`;

export const HIKARI_JA = `# Hikari

Hikari は Node.js 向けの小さなログライブラリです。ログを JSON 形式で標準出力に書き出し、ログレベルごとに出力を絞り込むことができます。依存パッケージはありません。

## インストール

npm でインストールします。

\`\`\`sh
npm install hikari-log
\`\`\`

Node.js 18 以降が必要です。それより古いバージョンでは起動時にエラーになります。

## 使い方

\`createLogger\` 関数でロガーを作成し、\`info\` や \`error\` などのメソッドでログを書き出します。

\`\`\`js
import { createLogger } from 'hikari-log';
const log = createLogger({ name: 'app' });
log.info('サーバーを起動しました');
\`\`\`

子ロガーを作るには \`log.child({ module: 'db' })\` を呼びます。子ロガーのログには、親の項目に加えて渡した項目が付きます。

## ログレベル

ログレベルは \`trace\`、\`debug\`、\`info\`、\`warn\`、\`error\`、\`fatal\` の六つです。デフォルトのレベルは \`info\` で、それより低いレベルのログは出力されません。環境変数 \`HIKARI_LEVEL\` を設定すると、コードを変更せずにレベルを変えることができます。

## ファイルへの出力

ログをファイルに書き出すには、\`destination\` オプションにファイルのパスを指定します。ファイルが 10 MB を超えると、自動的に新しいファイルに切り替わります。古いファイルは最大で 5 個まで保存され、それより古いものは削除されます。

## 機密情報の隠蔽

\`redact\` オプションにキーの一覧を渡すと、そのキーの値は \`[REDACTED]\` に置き換えられます。パスワードやアクセストークンをログに残さないために使います。

## 注意事項

非同期モードでは、プロセスが突然終了すると最後の数件のログが失われることがあります。確実に書き出したい場合は、終了する前に \`log.flush()\` を呼んでください。
`;

export const RELAY_EN = `# Relay

Relay is a message broker for small teams. It stores messages on disk and delivers them in order.

## Install

Relay runs on Linux and macOS. To install it, run:

\`\`\`sh
curl -fsSL https://relay.example/install.sh | sh
\`\`\`

## Options

The delivery timeout defaults to 30 seconds. The port defaults to 8080.

## Backups

Back up the data directory while Relay is stopped.
`;

/** The English original of part of FERRY_ZH: a translation and its source side by side. */
export const FERRY_EN = `# Ferry guide

Ferry is a lightweight message queue for small teams. It keeps messages on disk and delivers them in the order they were written.

## Configuration

Ferry reads ferry.toml in the current directory. Without it, every option takes its default.

| Option | Default | Meaning |
| --- | --- | --- |
| \`port\` | \`7420\` | The port the service listens on. |
| \`retention\` | \`7d\` | How long messages are kept. |

## Sending messages

Send a message with the official Node.js client:

\`\`\`js
const { connect } = require('ferry-client');
// connect to the local Ferry service
const ferry = await connect('ferry://localhost:7420');
// send one message to the orders queue
await ferry.send('orders', { id: 42 });
\`\`\`
`;

export const CJK_QUESTIONS: CjkQuestion[] = [
  { question: 'Ferry 是什么？', source: 'ferry', facts: ['轻量级消息队列'] },
  { question: 'Ferry 默认监听哪个端口？', source: 'ferry', facts: ['7420'] },
  { question: '怎么在 Linux 上安装 Ferry？', source: 'ferry', facts: ['install.sh'] },
  { question: '消息默认保留多久？', source: 'ferry', facts: ['7d'] },
  { question: '消费者没有确认消息会怎么样？', source: 'ferry', facts: ['重新投递'] },
  { question: '备份数据之前需要做什么？', source: 'ferry', facts: ['必须先停止'] },
  { question: '一个队列最多可以连接多少个消费者？', source: 'ferry', facts: ['64'] },
  { question: '断电以后已经确认的消息会丢吗？', source: 'ferry', facts: ['fsync'] },
  { question: '怎样让日志输出为 JSON？', source: 'ferry', facts: ['log_format'] },
  { question: '怎么用 Node.js 发送消息？', source: 'ferry', facts: ['ferry.send'] },
  {
    question: 'Hikari のデフォルトのログレベルは何ですか？',
    source: 'hikari',
    facts: ['`info` で'],
  },
  {
    question: 'コードを変えずにログレベルを変更するには？',
    source: 'hikari',
    facts: ['HIKARI_LEVEL'],
  },
  { question: 'ログファイルは何 MB で切り替わりますか？', source: 'hikari', facts: ['10 MB'] },
  { question: 'パスワードをログに出さない方法はありますか？', source: 'hikari', facts: ['redact'] },
  {
    question: 'Hikari のインストール方法を教えてください',
    source: 'hikari',
    facts: ['npm install hikari-log'],
  },
  {
    question: 'ログが失われないようにするにはどうすればいいですか？',
    source: 'hikari',
    facts: ['log.flush()'],
  },
  { question: '必要な Node.js のバージョンは？', source: 'hikari', facts: ['18'] },
  { question: '子ロガーの作り方', source: 'hikari', facts: ['log.child'] },
  { question: 'Ferry 支持 Kafka 协议吗？', facts: [] },
  { question: 'Hikari で画像を圧縮する方法は？', facts: [] },
];
